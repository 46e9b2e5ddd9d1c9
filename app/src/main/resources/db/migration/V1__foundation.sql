-- Foundation schema. Portable between SQLite and PostgreSQL: TEXT ids, BIGINT epoch-millisecond
-- timestamps, BOOLEAN flags, partial unique indexes.

CREATE TABLE principals (
    id          TEXT PRIMARY KEY,
    auth        TEXT NOT NULL,            -- 'email' or 'key'
    email       TEXT,                     -- lower-cased; null for key principals
    name        TEXT NOT NULL,
    description TEXT NOT NULL,
    created_by  TEXT,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);
CREATE UNIQUE INDEX principals_email ON principals (email);

CREATE TABLE principal_keys (
    id           TEXT PRIMARY KEY,
    principal    TEXT NOT NULL REFERENCES principals (id),
    public_key   TEXT NOT NULL,           -- public JWK
    byok         BOOLEAN NOT NULL,
    created_by   TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL,
    last_used_at BIGINT,
    revoked_at   BIGINT
);
CREATE INDEX principal_keys_principal ON principal_keys (principal, id);

CREATE TABLE workspaces (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    state      TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    deleted_at BIGINT
);
CREATE UNIQUE INDEX workspaces_live_name ON workspaces (name) WHERE deleted_at IS NULL;

CREATE TABLE access (
    workspace  TEXT NOT NULL REFERENCES workspaces (id),
    principal  TEXT NOT NULL REFERENCES principals (id),
    role       TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (workspace, principal)
);
CREATE INDEX access_principal ON access (principal, workspace);

CREATE TABLE login_codes (
    id         TEXT PRIMARY KEY,
    email      TEXT NOT NULL,
    code_hash  TEXT NOT NULL,
    attempts   INTEGER NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at    BIGINT
);
CREATE INDEX login_codes_email ON login_codes (email, created_at);

CREATE TABLE sessions (
    id             TEXT PRIMARY KEY,
    principal      TEXT NOT NULL REFERENCES principals (id),
    created_at     BIGINT NOT NULL,
    expires_at     BIGINT NOT NULL,
    revoked_at     BIGINT,
    revoked_reason TEXT
);

CREATE TABLE refresh_tokens (
    token_hash TEXT PRIMARY KEY,
    session    TEXT NOT NULL REFERENCES sessions (id),
    created_at BIGINT NOT NULL,
    used_at    BIGINT
);
CREATE INDEX refresh_tokens_session ON refresh_tokens (session);

-- jti values of accepted RFC 7523 assertions, kept until the assertion would have expired.
CREATE TABLE assertion_jtis (
    key_id     TEXT NOT NULL,
    jti        TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (key_id, jti)
);

CREATE TABLE idempotency_keys (
    principal    TEXT NOT NULL,
    method       TEXT NOT NULL,
    path         TEXT NOT NULL,
    idem_key     TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    status       INTEGER,                 -- null while the first request is still running
    body         TEXT,                    -- the response with secrets redacted
    created_at   BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL,
    PRIMARY KEY (principal, method, path, idem_key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
