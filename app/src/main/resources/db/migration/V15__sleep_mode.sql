-- Sleep has two depths: warm (the sandbox frozen, its memory in RAM) and cold (memory and overlay
-- checkpointed to disk, the sandbox gone). slept_at (epoch ms) is when it fell asleep: warm sleepers
-- go cold after --warm-sleep-seconds, oldest first under memory pressure. Sleepers from before were cold.
ALTER TABLE computers ADD COLUMN sleep_mode TEXT;
ALTER TABLE computers ADD COLUMN slept_at BIGINT;
UPDATE computers SET sleep_mode = 'cold', slept_at = updated_at WHERE state = 'sleeping';
