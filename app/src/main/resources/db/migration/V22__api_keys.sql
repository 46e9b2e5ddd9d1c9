-- Long-lived API keys (shown once, stored as a SHA-256 digest), each bound to a principal and one
-- workspace with a role no higher than the principal's there.
CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    workspace    TEXT NOT NULL,
    principal    TEXT NOT NULL,
    name         TEXT NOT NULL,
    role         TEXT NOT NULL,
    prefix       TEXT NOT NULL,           -- the first characters, to recognise a key by
    secret_hash  TEXT NOT NULL UNIQUE,
    created_at   BIGINT NOT NULL,
    expires_at   BIGINT,                  -- null: until revoked
    last_used_at BIGINT,
    revoked_at   BIGINT
);
CREATE INDEX api_keys_workspace ON api_keys (workspace, id);
