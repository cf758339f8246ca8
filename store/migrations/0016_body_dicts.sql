-- Trace bodies may be compressed with a dictionary (store/import_body.go):
-- the first 64 kB of an import's bodies, stored once here. A body's zstd
-- frame names its dictionary by id in its header; frames that name none
-- need none. Rows are never changed or removed (a body may name any).
CREATE TABLE body_dicts (
    id   INTEGER PRIMARY KEY CHECK (id BETWEEN 1 AND 4294967295), -- zstd dictionary id
    hash TEXT NOT NULL UNIQUE,                                   -- hex sha256 of dict
    dict BLOB NOT NULL                                           -- raw content dictionary
) STRICT;
