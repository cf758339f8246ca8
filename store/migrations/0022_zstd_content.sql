-- migrate: foreign_keys=off
-- A version's stored content may be zstd (issue 30): its parts are zstd
-- frames instead of gzip members. zstd at its fastest compresses an export
-- in about half the CPU time of gzip at BestSpeed and to about a third of
-- the size, so an export writes less into the store, and reading a version
-- back decompresses faster. Versions stored as gzip or identity stay as
-- they are.
--
-- datasets.content_encoding gains 'zstd' in its CHECK. SQLite cannot change
-- a CHECK in place, so the table is rebuilt (the 12-step procedure, as in
-- 0008_audit_ci.sql), with foreign keys off (the marker on the first line):
-- dataset_items and dataset_parts reference datasets. The triggers that
-- name datasets are dropped first (a rename checks every trigger, and
-- theirs would name a table that is gone) and created again as they were.
DROP TRIGGER datasets_no_update;
DROP TRIGGER datasets_no_delete;
DROP TRIGGER dataset_items_no_insert;
DROP TRIGGER dataset_items_no_update;
DROP TRIGGER dataset_items_no_delete;
DROP TRIGGER dataset_parts_no_insert;
DROP TRIGGER dataset_parts_no_update;
DROP TRIGGER dataset_parts_no_delete;

CREATE TABLE datasets_new (
    name             TEXT NOT NULL,
    version          INTEGER NOT NULL CHECK (version >= 1),
    parent_version   INTEGER,
    created_at       TEXT NOT NULL,
    created_by       TEXT NOT NULL DEFAULT '',
    message          TEXT NOT NULL DEFAULT '',
    sha256           TEXT NOT NULL,
    count            INTEGER NOT NULL,
    manifest         TEXT NOT NULL,               -- the manifest JSON, as written
    content          BLOB NOT NULL,               -- the JSONL (encoded), or empty when in dataset_parts
    content_encoding TEXT NOT NULL DEFAULT 'identity' CHECK (content_encoding IN ('identity', 'gzip', 'zstd')),
    state            TEXT NOT NULL DEFAULT 'ready' CHECK (state IN ('staging', 'ready')),
    heartbeat_at     TEXT NOT NULL DEFAULT '',
    writer           TEXT NOT NULL DEFAULT '',
    record_format    INTEGER NOT NULL DEFAULT 1 CHECK (record_format IN (1, 2)),
    PRIMARY KEY (name, version)
) STRICT;
INSERT INTO datasets_new(name, version, parent_version, created_at, created_by, message, sha256, count, manifest, content,
        content_encoding, state, heartbeat_at, writer, record_format)
    SELECT name, version, parent_version, created_at, created_by, message, sha256, count, manifest, content,
        content_encoding, state, heartbeat_at, writer, record_format FROM datasets;
DROP TABLE datasets;
ALTER TABLE datasets_new RENAME TO datasets;

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
