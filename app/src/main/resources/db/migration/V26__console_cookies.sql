-- The web console's sign-ins: the digest of each HttpOnly cookie and what it stands for (a
-- principal and the credential it signed in with: an email session or an API key), so the server
-- can end it (logout, a revoked key or session) whatever the browser keeps.
CREATE TABLE console_cookies (
    token_hash TEXT PRIMARY KEY,
    principal  TEXT NOT NULL,
    credential TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    revoked_at BIGINT
);
