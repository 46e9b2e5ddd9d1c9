-- How a computer's main process starts: {entrypoint, command, restart} as JSON; NULL is the image's
-- entrypoint and cmd with restart on-failure.
ALTER TABLE computers ADD COLUMN launch TEXT;
