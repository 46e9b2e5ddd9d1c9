-- Sleep: pending is "sleeping" while a move to sleep runs; incarnation numbers the computer's
-- sandboxes (a new runsc id after every sleep and restore); auto_sleep_seconds is null for never.
ALTER TABLE computers ADD COLUMN pending TEXT;
ALTER TABLE computers ADD COLUMN auto_sleep_seconds INTEGER;
ALTER TABLE computers ADD COLUMN incarnation INTEGER NOT NULL DEFAULT 1;

-- Checkpoints of computers: memory and overlay (runsc's image) and a copy of /data, on disk under
-- {data_dir}/checkpoints/{id}.
CREATE TABLE checkpoints (
    id           TEXT PRIMARY KEY,
    workspace    TEXT NOT NULL REFERENCES workspaces (id),
    source_type  TEXT NOT NULL,
    source       TEXT NOT NULL,
    name         TEXT NOT NULL,
    state        TEXT NOT NULL,           -- creating, ready, failed, deleting
    generation   INTEGER NOT NULL,
    image_digest TEXT,
    size_bytes   BIGINT NOT NULL,
    parent       TEXT,
    error        TEXT,                    -- JSON {code, message}
    created_at   BIGINT NOT NULL,
    deleted_at   BIGINT
);
CREATE INDEX checkpoints_source ON checkpoints (source, id);
