-- A computer's disk (resources.disk_mb): /data, its root overlay and its sleep image on a file system of
-- that size. Computers made before it have none (NULL): their files stay in the data directory unbounded.
ALTER TABLE computers ADD COLUMN disk_mb INTEGER;
