-- The server's operator: who may see the cluster's nodes through /v1 (GET /nodes, the console's
-- Nodes page). The admin principal made at first start is the operator.
ALTER TABLE principals ADD COLUMN operator BOOLEAN NOT NULL DEFAULT FALSE;
UPDATE principals SET operator = TRUE
    WHERE auth = 'KEY' AND created_by IS NULL AND name = 'admin' AND description = 'created on first start';
