-- Computers made through E2B's API: the API key that made one (whose principal the in-sandbox
-- calls act as), the template it was asked for, and whether traffic resumes it once paused.
CREATE TABLE e2b_sandboxes (
    computer    TEXT PRIMARY KEY,
    workspace   TEXT NOT NULL,
    api_key     TEXT NOT NULL,
    template    TEXT NOT NULL,
    auto_resume BOOLEAN NOT NULL DEFAULT FALSE,
    created_at  BIGINT NOT NULL
);
