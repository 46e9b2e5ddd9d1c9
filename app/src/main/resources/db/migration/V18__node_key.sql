-- The key nodes sign requests they relay to each other with (HMAC-SHA256, hex): made by the first
-- node that needs it, read by every node sharing the store, never shown to users.
CREATE TABLE node_keys (
    id     INTEGER PRIMARY KEY,
    secret TEXT NOT NULL
);
