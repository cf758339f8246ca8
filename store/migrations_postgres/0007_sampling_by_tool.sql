-- The sampling index leads with first_tool, then the timestamp, as SQLite's
-- migration sampling_by_tool: a scan reads it one tool at a time, in slices
-- of each tool's time span.
-- migrate: notice: rebuilding the sampling index, once (a few seconds per 500k items)
DROP INDEX items_sampling;
CREATE INDEX items_sampling ON items(first_tool, ts_unix, input_hi, input_lo, n_calls, metaset);
