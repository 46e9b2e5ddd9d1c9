-- Variables: values are AES-GCM ciphertext only; the store never holds a plaintext value.
CREATE TABLE variables (
    id           TEXT PRIMARY KEY,
    workspace    TEXT NOT NULL REFERENCES workspaces (id),
    name         TEXT NOT NULL,
    ciphertext   TEXT NOT NULL,           -- base64 of nonce || ciphertext || tag
    key_id       TEXT NOT NULL,           -- which encryption key sealed it
    created_by   TEXT NOT NULL,
    updated_by   TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL,
    deleted_at   BIGINT
);
CREATE UNIQUE INDEX variables_live_name ON variables (workspace, name) WHERE deleted_at IS NULL;
CREATE INDEX variables_workspace ON variables (workspace, id);

-- Invitations: state is pending, accepted, revoked or expired; a pending one past expires_at
-- reads as expired. Mail delivery is retried from here until it succeeds.
CREATE TABLE invitations (
    id             TEXT PRIMARY KEY,
    workspace      TEXT NOT NULL REFERENCES workspaces (id),
    email          TEXT NOT NULL,
    role           TEXT NOT NULL,
    state          TEXT NOT NULL,
    invited_by     TEXT NOT NULL,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL,
    expires_at     BIGINT NOT NULL,
    email_sent     BOOLEAN NOT NULL,
    last_sent_at   BIGINT,
    send_attempts  INTEGER NOT NULL,
    next_send_at   BIGINT,                -- null when nothing is left to send
    last_send_error TEXT,
    accepted_by    TEXT,
    accepted_at    BIGINT
);
CREATE UNIQUE INDEX invitations_one_pending ON invitations (workspace, email) WHERE state = 'pending';
CREATE INDEX invitations_workspace ON invitations (workspace, id);
CREATE INDEX invitations_to_send ON invitations (next_send_at);

-- Operations: long work run by the executor. A running operation is leased by one server
-- process; a lease that lapses (the process died) lets another claim it.
CREATE TABLE operations (
    id           TEXT PRIMARY KEY,
    kind         TEXT NOT NULL,
    state        TEXT NOT NULL,           -- running, succeeded, failed
    workspace    TEXT NOT NULL REFERENCES workspaces (id),
    resource     TEXT,
    input        TEXT NOT NULL,           -- JSON the kind needs to run or resume
    progress     TEXT,
    error        TEXT,                    -- JSON {code, message}
    attempts     INTEGER NOT NULL,
    lease_owner  TEXT,
    lease_until  BIGINT,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL,
    completed_at BIGINT
);
CREATE INDEX operations_running ON operations (state, lease_until);
CREATE INDEX operations_workspace ON operations (workspace, id);
