-- What a new node needs to join (the signing and encryption keys, the cluster's public URL), sealed
-- with AES-256-GCM under a key only the join token holds: the store never has it in clear.
CREATE TABLE join_tokens (
    id         TEXT PRIMARY KEY,
    sealed     TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);

-- The base URL a node's clients use (the audience of its tokens and key files): a join token carries it.
ALTER TABLE nodes ADD COLUMN public_url TEXT;
