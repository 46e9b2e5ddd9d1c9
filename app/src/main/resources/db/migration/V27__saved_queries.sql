-- A workspace's saved SQL queries (the console's SQL editor keeps them): text only. A deleted one
-- keeps its row and frees its name.
CREATE TABLE saved_queries (
    id         TEXT PRIMARY KEY,
    workspace  TEXT NOT NULL REFERENCES workspaces (id),
    name       TEXT NOT NULL,
    sql        TEXT NOT NULL,
    created_by TEXT NOT NULL,
    updated_by TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT
);
CREATE UNIQUE INDEX saved_queries_live_name ON saved_queries (workspace, name) WHERE deleted_at IS NULL;
CREATE INDEX saved_queries_workspace ON saved_queries (workspace, id);
