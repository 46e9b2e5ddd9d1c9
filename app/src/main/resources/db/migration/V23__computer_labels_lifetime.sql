-- Labels (a computer's metadata: E2B's) and a lifetime: at expires_at the computer is deleted or
-- put to sleep (on_expire). computer_labels mirrors the labels for filtering lists by them.
ALTER TABLE computers ADD COLUMN labels TEXT;
ALTER TABLE computers ADD COLUMN expires_at BIGINT;
ALTER TABLE computers ADD COLUMN on_expire TEXT;
CREATE INDEX computers_expiry ON computers (expires_at);
CREATE TABLE computer_labels (
    computer TEXT NOT NULL,
    name     TEXT NOT NULL,
    value    TEXT NOT NULL,
    PRIMARY KEY (computer, name)
);
CREATE INDEX computer_labels_by_value ON computer_labels (name, value);
