-- Idempotency keys are held while their first request runs, however long: the server renews
-- lease_until (epoch ms) as it works, and only a claim whose lease ran out (its server died) is let go.
ALTER TABLE idempotency_keys ADD COLUMN lease_until BIGINT;
UPDATE idempotency_keys SET lease_until = created_at;
