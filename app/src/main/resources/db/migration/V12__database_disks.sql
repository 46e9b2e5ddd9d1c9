-- A database's disk (disk_mb): its cluster's files on a file system of that size, its WAL on one of its own.
-- Databases made before it have none (NULL): their files stay in the data directory unbounded.
ALTER TABLE databases ADD COLUMN disk_mb INTEGER;
