-- Catalogue drift (issue 29). An item put back to reviewers because the
-- tool catalogue changed (sample --stale --tools) is labeled against the
-- current catalogue, not the one its trace offered: items.toolset, when
-- set, is that catalogue (a tool list stored once in toolsets, as traces
-- reference theirs), and the label screen, labels import and export read
-- it in place of the trace's.
ALTER TABLE items ADD COLUMN toolset INTEGER REFERENCES toolsets(id);
-- How a version's record lines are written: 1, the first shape; 2, with
-- a "catalogue" member (each offered tool's hash) after available_tools.
-- Versions exported before keep 1, so their bytes never change.
ALTER TABLE datasets ADD COLUMN record_format INTEGER NOT NULL DEFAULT 1 CHECK (record_format IN (1, 2));
