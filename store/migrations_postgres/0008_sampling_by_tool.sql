-- The sampling index leads with first_tool, then the input key, as SQLite's
-- migration sampling_by_tool: a scan reads it one tool at a time, in
-- slices of the input key's range.
-- migrate: notice: rebuilding the sampling index, once (a few seconds per 500k items)
DROP INDEX items_sampling;
CREATE INDEX items_sampling ON items(first_tool, input_hi, input_lo, ts_unix, n_calls, metaset);
