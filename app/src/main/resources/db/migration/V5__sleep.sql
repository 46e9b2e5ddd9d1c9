-- Sleep: pending is "sleeping" while a move to sleep runs; incarnation numbers the computer's
-- sandboxes (a new runsc id after every sleep and restore); auto_sleep_seconds is null for never.
ALTER TABLE computers ADD COLUMN pending TEXT;
ALTER TABLE computers ADD COLUMN auto_sleep_seconds INTEGER;
ALTER TABLE computers ADD COLUMN incarnation INTEGER NOT NULL DEFAULT 1;
