-- A kept checkpoint (a template: E2B's snapshot) outlives its computer: deleting the computer
-- leaves it, and new computers are made from it until it is deleted itself.
ALTER TABLE checkpoints ADD COLUMN kept BOOLEAN NOT NULL DEFAULT FALSE;
