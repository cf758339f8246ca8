-- An import is written while its input is read (issue 15): until the input
-- has been read to its end, its record count is not known (imports.total
-- is 0 then), and how far it got is told by the input's bytes read at the
-- last record written, of its size (0 when not known: stdin).
ALTER TABLE imports ADD COLUMN read_bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE imports ADD COLUMN size_bytes INTEGER NOT NULL DEFAULT 0;
