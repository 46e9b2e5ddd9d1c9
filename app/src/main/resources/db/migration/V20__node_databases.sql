-- The address the node's database ports (and pooler) listen on for other nodes: they relay
-- connections for its databases there, and their poolers reach its clusters there.
ALTER TABLE nodes ADD COLUMN database_address TEXT NOT NULL DEFAULT '';

-- What every node's databases share, sealed with the encryption keys the nodes share: the
-- databases' CA (key and certificate) and the pooler's lookup password, so that one CA vouches for
-- every node's clusters and any node's pooler logs into any node's clusters. Put by the first node.
CREATE TABLE node_secrets (
    name       TEXT PRIMARY KEY,
    key_id     TEXT NOT NULL,
    ciphertext TEXT NOT NULL
);
