-- How the main process of a computer's sandbox last ended, as JSON {exit_code, ended_at, incarnation}:
-- shown while that sandbox (incarnation) runs; null until an end was seen.
ALTER TABLE computers ADD COLUMN main_exit TEXT;
