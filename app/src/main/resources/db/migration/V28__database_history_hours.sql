-- How far back each database keeps its history (WAL and bases), in hours.
ALTER TABLE databases ADD COLUMN history_hours INTEGER NOT NULL DEFAULT 24;
