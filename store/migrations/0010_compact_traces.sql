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

-- Each distinct ordered list of tools offered to traces is stored once (a
-- log's traces usually offer the same tools): traces.toolset points at it.
-- trace_tools, one row per trace and tool, becomes a view of the same
-- shape, so its readers are unchanged.
CREATE TABLE toolsets (
    id     INTEGER PRIMARY KEY,
    hashes TEXT NOT NULL UNIQUE               -- JSON array of tool hashes, in order
) STRICT;
ALTER TABLE traces ADD COLUMN toolset INTEGER REFERENCES toolsets(id);
CREATE TEMP TABLE trace_toolset AS
    SELECT trace_id, json_group_array(tool_hash) AS hashes
    FROM (SELECT trace_id, tool_hash FROM trace_tools ORDER BY trace_id, position)
    GROUP BY trace_id;
INSERT INTO toolsets(hashes) SELECT DISTINCT hashes FROM trace_toolset ORDER BY hashes;
UPDATE traces SET toolset = (SELECT s.id FROM trace_toolset x JOIN toolsets s ON s.hashes = x.hashes
    WHERE x.trace_id = traces.id);
DROP TABLE trace_toolset;
DROP TABLE trace_tools;
CREATE VIEW trace_tools AS
    SELECT t.id AS trace_id, CAST(j.key AS INTEGER) AS position, j.value AS tool_hash
    FROM traces t JOIN toolsets s ON s.id = t.toolset JOIN json_each(s.hashes) j;
CREATE INDEX traces_toolset ON traces(toolset);

-- No query looks items up by input_hash (sampling reads it from
-- items_sampling, which covers it); its index cost every import three random
-- index pages per trace (rewritten into the log chunk after chunk) and 8% of
-- the store.
DROP INDEX items_input_hash;
