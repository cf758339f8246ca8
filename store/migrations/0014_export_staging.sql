-- Exports are written in short transactions (issue 18), all or nothing
-- through a staging state.
--
-- A version is first inserted 'staging' (hidden from every reader), its
-- items and its compressed content (dataset_parts, one gzip member a row)
-- follow chunk by chunk, and the last transaction fills in the manifest and
-- the hash and flips it to 'ready' in one statement. A failed export removes
-- its staging version; one whose writer was killed (its process is gone, or
-- no heartbeat for a minute) is removed by the next export and reported by
-- `goldtrace check`.
ALTER TABLE datasets ADD COLUMN state TEXT NOT NULL DEFAULT 'ready'
    CHECK (state IN ('staging', 'ready'));
ALTER TABLE datasets ADD COLUMN heartbeat_at TEXT NOT NULL DEFAULT '';
-- Who writes a staging version: 'HOST PID'. A version whose writer process
-- is gone (same host) is abandoned at once, not only after a minute.
ALTER TABLE datasets ADD COLUMN writer TEXT NOT NULL DEFAULT '';

-- The content of a version written in parts: the gzip members of its
-- content, in order (seq from 0), joined they are the gzip stream. A
-- version with parts has an empty datasets.content.
CREATE TABLE dataset_parts (
    name    TEXT NOT NULL,
    version INTEGER NOT NULL,
    seq     INTEGER NOT NULL,
    data    BLOB NOT NULL,
    PRIMARY KEY (name, version, seq),
    FOREIGN KEY (name, version) REFERENCES datasets(name, version)
) STRICT;

-- Which versions hold an item (Reopen, labels import's undo) without a
-- scan of every version's items.
CREATE INDEX dataset_items_item ON dataset_items(item_id);

-- Immutability now holds from 'ready' on: a staging version can be filled
-- in and flipped (UPDATE), or removed (DELETE), and nothing can be added to
-- a ready one.
DROP TRIGGER datasets_no_update;
DROP TRIGGER datasets_no_delete;
DROP TRIGGER dataset_items_no_update;
DROP TRIGGER dataset_items_no_delete;
CREATE TRIGGER datasets_no_update BEFORE UPDATE ON datasets WHEN OLD.state = 'ready'
BEGIN SELECT RAISE(ABORT, 'immutable: exported dataset versions cannot be changed'); END;
CREATE TRIGGER datasets_no_delete BEFORE DELETE ON datasets WHEN OLD.state = 'ready'
BEGIN SELECT RAISE(ABORT, 'immutable: exported dataset versions cannot be deleted'); END;
CREATE TRIGGER dataset_items_no_insert BEFORE INSERT ON dataset_items
    WHEN (SELECT state FROM datasets WHERE name = NEW.name AND version = NEW.version) = 'ready'
BEGIN SELECT RAISE(ABORT, 'immutable: exported dataset versions cannot be changed'); END;
CREATE TRIGGER dataset_items_no_update BEFORE UPDATE ON dataset_items
    WHEN (SELECT state FROM datasets WHERE name = OLD.name AND version = OLD.version) IS NOT 'staging'
BEGIN SELECT RAISE(ABORT, 'immutable: exported dataset versions cannot be changed'); END;
CREATE TRIGGER dataset_items_no_delete BEFORE DELETE ON dataset_items
    WHEN (SELECT state FROM datasets WHERE name = OLD.name AND version = OLD.version) IS NOT 'staging'
BEGIN SELECT RAISE(ABORT, 'immutable: exported dataset versions cannot be deleted'); END;
CREATE TRIGGER dataset_parts_no_insert BEFORE INSERT ON dataset_parts
    WHEN (SELECT state FROM datasets WHERE name = NEW.name AND version = NEW.version) = 'ready'
BEGIN SELECT RAISE(ABORT, 'immutable: exported dataset versions cannot be changed'); END;
CREATE TRIGGER dataset_parts_no_update BEFORE UPDATE ON dataset_parts
    WHEN (SELECT state FROM datasets WHERE name = OLD.name AND version = OLD.version) IS NOT 'staging'
BEGIN SELECT RAISE(ABORT, 'immutable: exported dataset versions cannot be changed'); END;
CREATE TRIGGER dataset_parts_no_delete BEFORE DELETE ON dataset_parts
    WHEN (SELECT state FROM datasets WHERE name = OLD.name AND version = OLD.version) IS NOT 'staging'
BEGIN SELECT RAISE(ABORT, 'immutable: exported dataset versions cannot be deleted'); END;
