-- The resource a create made, noted in the create's own transaction: a retry under the same key
-- after the server died mid-request answers that resource instead of making (or refusing) another.
ALTER TABLE idempotency_keys ADD COLUMN resource_id TEXT;
