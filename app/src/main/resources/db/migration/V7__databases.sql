-- Databases: one PostgreSQL cluster each, under databases/clusters/<id>. port is the public port
-- Hearth's proxy listens on for it; password is sealed (AES-GCM, see Keyring) and reset_pending says
-- a reset made while asleep has not reached the cluster yet. A deleted database keeps its row.
CREATE TABLE databases (
    id                 TEXT PRIMARY KEY,
    workspace          TEXT NOT NULL REFERENCES workspaces (id),
    name               TEXT NOT NULL,
    state              TEXT NOT NULL,        -- ready, sleeping
    version            TEXT NOT NULL,        -- PostgreSQL major version
    port               INTEGER NOT NULL,
    db_name            TEXT NOT NULL,
    db_user            TEXT NOT NULL,
    password_key       TEXT NOT NULL,
    password           TEXT NOT NULL,
    reset_pending      BOOLEAN NOT NULL,
    protected          BOOLEAN NOT NULL,
    auto_sleep_seconds INTEGER NOT NULL,     -- 0: never
    generation         INTEGER NOT NULL,
    parent             TEXT,
    from_checkpoint    TEXT,
    error              TEXT,                 -- JSON {code, message}
    created_at         BIGINT NOT NULL,
    updated_at         BIGINT NOT NULL,
    last_active_at     BIGINT,
    deleted_at         BIGINT
);
CREATE UNIQUE INDEX databases_live_name ON databases (workspace, name) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX databases_live_port ON databases (port) WHERE deleted_at IS NULL;
CREATE INDEX databases_workspace ON databases (workspace, id);
