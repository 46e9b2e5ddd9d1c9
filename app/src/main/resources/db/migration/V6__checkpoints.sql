-- Checkpoints of computers (and, later, of databases): memory, overlay and /data, kept on disk under
-- checkpoints/<id>. A deleted checkpoint keeps its row (deleted_at) and frees its name.
CREATE TABLE checkpoints (
    id           TEXT PRIMARY KEY,
    workspace    TEXT NOT NULL REFERENCES workspaces (id),
    source_type  TEXT NOT NULL,              -- computer
    source       TEXT NOT NULL,              -- the computer's id
    name         TEXT NOT NULL,
    state        TEXT NOT NULL,              -- creating, ready, failed, deleting
    generation   INTEGER NOT NULL,
    image_digest TEXT,
    size_bytes   BIGINT NOT NULL DEFAULT 0,
    parent       TEXT,
    error        TEXT,
    created_at   BIGINT NOT NULL,
    deleted_at   BIGINT
);
CREATE INDEX checkpoints_source ON checkpoints (source, id);
CREATE UNIQUE INDEX checkpoints_name ON checkpoints (source, name) WHERE deleted_at IS NULL AND state <> 'failed';
