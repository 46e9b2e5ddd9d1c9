-- Every encryption key a rotation made (hearth admin rotate-encryption-key, run on one host), sealed
-- with the key that was active before it: each node sharing this store takes it into its own key
-- file and seals with it from then on, so that no node is left unable to open what another sealed.
CREATE TABLE encryption_keys (
    id         TEXT PRIMARY KEY,
    sealed_by  TEXT NOT NULL,
    ciphertext TEXT NOT NULL
);
