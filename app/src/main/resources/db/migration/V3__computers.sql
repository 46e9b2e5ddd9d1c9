-- Computers: gVisor sandboxes. slot is the network slot (netns + /30); env holds literals and
-- names of variables (never their values).
CREATE TABLE computers (
    id              TEXT PRIMARY KEY,
    workspace       TEXT NOT NULL REFERENCES workspaces (id),
    name            TEXT NOT NULL,
    state           TEXT NOT NULL,           -- creating, ready, failed
    image           TEXT NOT NULL,
    image_digest    TEXT,
    env             TEXT NOT NULL,           -- JSON {NAME: {"literal": v} | {"secret": variable}}
    ports           TEXT NOT NULL,           -- JSON [{target, published, protocol}]
    cpus            DOUBLE PRECISION NOT NULL,
    memory_mb       INTEGER NOT NULL,
    protected       BOOLEAN NOT NULL,
    generation      INTEGER NOT NULL,
    slot            INTEGER NOT NULL,
    parent          TEXT,
    from_checkpoint TEXT,
    error           TEXT,                    -- JSON {code, message}
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL,
    last_started_at BIGINT,
    last_active_at  BIGINT,
    deleted_at      BIGINT
);
CREATE UNIQUE INDEX computers_live_name ON computers (workspace, name) WHERE deleted_at IS NULL;
CREATE UNIQUE INDEX computers_live_slot ON computers (slot) WHERE deleted_at IS NULL;
CREATE INDEX computers_workspace ON computers (workspace, id);
