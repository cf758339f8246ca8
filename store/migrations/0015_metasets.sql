-- Each distinct metadata object is stored once (issue 15): a log's traces
-- usually share a few combinations of model, prompt version, cohort, …, and
-- one trace_meta row plus one trace_meta_kv entry per key and trace cost
-- ten b-tree inserts per trace and an eighth of the store.
--
-- metasets.json is the object's canonical JSON (keys sorted, as
-- encoding/json writes a map). traces.metaset points at it, NULL when the
-- trace has no metadata; traces.metadata goes. items.metaset is a copy of
-- its trace's (as items.ts_unix is), so that sampling reads the stratum and
-- the --where filter from its covering index without visiting the trace.
-- A metaset no trace uses any more (after an undone import) stays, as
-- tools and toolsets do: a concurrent import may have just picked its id.
CREATE TABLE metasets (
    id   INTEGER PRIMARY KEY,
    json TEXT NOT NULL UNIQUE                 -- JSON object of strings, canonical
) STRICT;
INSERT INTO metasets(json)
    SELECT DISTINCT metadata FROM traces WHERE metadata NOT IN ('', '{}') ORDER BY 1;

ALTER TABLE traces ADD COLUMN metaset INTEGER REFERENCES metasets(id);
UPDATE traces SET metaset = (SELECT m.id FROM metasets m WHERE m.json = traces.metadata)
    WHERE metadata NOT IN ('', '{}');
ALTER TABLE traces DROP COLUMN metadata;
CREATE INDEX traces_metaset ON traces(metaset);

ALTER TABLE items ADD COLUMN metaset INTEGER;  -- its trace's metaset
UPDATE items SET metaset = (SELECT t.metaset FROM traces t WHERE t.id = items.trace_id);
DROP INDEX items_sampling;
CREATE INDEX items_sampling ON items(ts_unix, trace_id, turn, status, n_calls, first_tool, input_hash, metaset);

DROP TABLE trace_meta;
