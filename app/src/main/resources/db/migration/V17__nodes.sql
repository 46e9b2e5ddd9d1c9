-- Nodes: every hearth serve that shares this store, by name. A node holds its row while its lease
-- (lease_until, epoch ms) is renewed by the process named in instance; a lapsed lease means the
-- node is down, and only then may another process start under that name. state is what an operator
-- asked for (up, draining); down is never stored, it is read from the lease.
CREATE TABLE nodes (
    name         TEXT PRIMARY KEY,
    address      TEXT NOT NULL,              -- host:port of its API, for other nodes
    instance     TEXT NOT NULL,              -- the process holding the lease
    state        TEXT NOT NULL,              -- up, draining
    memory_bytes BIGINT NOT NULL,
    cpus         INTEGER NOT NULL,
    disk_bytes   BIGINT NOT NULL,
    started_at   BIGINT NOT NULL,
    lease_until  BIGINT NOT NULL
);

-- Where each computer, database, pooled sandbox and operation lives: the node whose runtime runs it
-- and whose reconcile adopts it. Rows from before nodes belong to the default node, local.
ALTER TABLE computers ADD COLUMN node TEXT NOT NULL DEFAULT 'local';
ALTER TABLE databases ADD COLUMN node TEXT NOT NULL DEFAULT 'local';
ALTER TABLE pooled_sandboxes ADD COLUMN node TEXT NOT NULL DEFAULT 'local';
ALTER TABLE operations ADD COLUMN node TEXT NOT NULL DEFAULT 'local';
