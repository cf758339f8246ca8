-- Trace messages are stored zstd-compressed: body holds the zstd frame of
-- the canonical JSON array of messages, and messages is '' for such rows.
-- Rows written before this migration keep their JSON in messages and a NULL
-- body; readers take whichever is set.
ALTER TABLE traces ADD COLUMN body BLOB;

-- Imports whose writing pass began and has not finished: an interrupted
-- import (SIGINT, SIGHUP, SIGTERM, or a killed process) is left here until
-- the same input is imported again to the end.
CREATE TABLE imports (
    source     TEXT PRIMARY KEY,              -- the input as named on the command line
    total      INTEGER NOT NULL,              -- traces the input holds
    written    INTEGER NOT NULL DEFAULT 0,    -- traces written so far (new or already stored)
    state      TEXT NOT NULL CHECK (state IN ('running', 'stopped')),
    updated_at TEXT NOT NULL
) STRICT;
