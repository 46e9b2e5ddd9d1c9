-- Images a workspace pulled (explicitly, or by creating a computer): reference -> manifest digest.
CREATE TABLE images (
    id         TEXT PRIMARY KEY,
    workspace  TEXT NOT NULL REFERENCES workspaces (id),
    reference  TEXT NOT NULL,
    state      TEXT NOT NULL,                -- pulling, ready, failed
    digest     TEXT,
    error      TEXT,
    created_at BIGINT NOT NULL,
    pulled_at  BIGINT
);
CREATE UNIQUE INDEX images_reference ON images (workspace, reference);
CREATE INDEX images_workspace ON images (workspace, id);
