-- The warm pool: sandboxes booted before anyone asked for them, one row each while unclaimed. id is
-- the computer id the sandbox will have (its directory, disk, runsc id and agent secret follow from
-- it); slot is its network slot, never given to a computer meanwhile. A claim deletes the row in the
-- transaction that inserts the computer, so no sandbox is handed out twice.
CREATE TABLE pooled_sandboxes (
    id           TEXT PRIMARY KEY,
    image        TEXT NOT NULL,
    image_digest TEXT,
    slot         INTEGER NOT NULL,
    state        TEXT NOT NULL,              -- booting, ready
    created_at   BIGINT NOT NULL
);
CREATE UNIQUE INDEX pooled_sandboxes_slot ON pooled_sandboxes (slot);
