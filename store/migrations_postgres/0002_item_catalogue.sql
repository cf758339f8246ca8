-- Catalogue drift (issue 29): as SQLite's 0018_item_catalogue.sql.
-- items.toolset, when set, is the catalogue a re-reviewed item is labeled
-- against (sample --stale --tools), in place of its trace's.
ALTER TABLE items ADD COLUMN toolset BIGINT REFERENCES toolsets(id);
-- How a version's record lines are written: 1, the first shape; 2, with
-- a "catalogue" member after available_tools.
ALTER TABLE datasets ADD COLUMN record_format BIGINT NOT NULL DEFAULT 1 CHECK (record_format IN (1, 2));
