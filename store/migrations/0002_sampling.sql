-- Sampling scans items in the order that decides which copy of a duplicated
-- input is kept (timestamp, trace id, turn) and reads only these columns, so
-- the scan is one pass over a covering index instead of a sort.
CREATE INDEX items_sampling ON items(ts_unix, trace_id, turn, status, n_calls, first_tool, input_hash, id);
