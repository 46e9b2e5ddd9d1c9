-- Computers and databases made before disks had sizes (disk_mb NULL, or 0 for databases) came from
-- builds before any release; none is left on an installation. Any row of one takes the default
-- size, so that no code path keeps a "no disk" case: its next start makes and mounts that disk.
UPDATE computers SET disk_mb = 10240 WHERE disk_mb IS NULL;
UPDATE databases SET disk_mb = 10240 WHERE disk_mb IS NULL OR disk_mb = 0;
