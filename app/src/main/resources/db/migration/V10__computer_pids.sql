-- A computer's process limit (resources.pids). Computers made before it get the default for their memory.
ALTER TABLE computers ADD COLUMN pids INTEGER;
