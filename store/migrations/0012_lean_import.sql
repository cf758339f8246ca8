-- Smaller, cheaper index entries for bulk imports (issue 15): every index
-- entry a trace adds is rewritten into the log by each chunk that touches
-- its page, and random keys touch a different page for each trace.

-- Trace metadata is clustered by its primary key (trace_id, key): one
-- b-tree instead of a rowid table plus its primary-key index.
CREATE TABLE trace_meta_new (
    trace_id TEXT NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
    key      TEXT NOT NULL,
    value    TEXT NOT NULL,
    PRIMARY KEY (trace_id, key)
) STRICT, WITHOUT ROWID;
INSERT INTO trace_meta_new(trace_id, key, value) SELECT trace_id, key, value FROM trace_meta ORDER BY trace_id, key;
DROP TABLE trace_meta;
ALTER TABLE trace_meta_new RENAME TO trace_meta;
CREATE INDEX trace_meta_kv ON trace_meta(key, value);

-- Deduplication by content looks a hash up by its first 16 hex digits (a
-- quarter of the key), then compares the whole hash. (substr, not unhex:
-- the sqlite3 shells people inspect a store with may predate unhex.)
DROP INDEX traces_content_hash;
CREATE INDEX traces_content_key ON traces(substr(content_hash, 1, 16));

-- The sampling scan reads rowids, not item ids: the covering index drops id.
DROP INDEX items_sampling;
CREATE INDEX items_sampling ON items(ts_unix, trace_id, turn, status, n_calls, first_tool, input_hash);

-- Items no batch has drawn (status 'new': most of a large store) are never
-- looked up by status, so items_status leaves them out and an import adds
-- no entry to it (its key, the random item id, cost a page per item).
-- Queries that use it say status != 'new'.
DROP INDEX items_status;
CREATE INDEX items_status ON items(status, id) WHERE status != 'new';
