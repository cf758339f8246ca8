-- Sampling reads items_sampling whole, and what each of its half a million
-- rows (on a 1 GB store) costs is mostly the columns the driver hands over:
-- the first tool as text, a string made per row, was the dearest. The index
-- now leads with first_tool, then the timestamp: a scan reads it one tool
-- (one --by tool stratum) at a time, so the tool is the query's parameter,
-- not a column, in slices of each tool's time span, and an import still
-- writes it in time order (one place per tool), not at random. Trace id and
-- turn go: the scan keeps the earliest copy of an input by its timestamp
-- (sampling.Sampler.AddCopy) and reads them only for copies of one input at
-- the same second.
--
-- Rebuilding it reads every item: about 2 CPU seconds per 500k items, so
-- opening a store that needs it says so first:
-- migrate: notice: rebuilding the sampling index, once (a few seconds per 500k items)
DROP INDEX items_sampling;
CREATE INDEX items_sampling ON items(first_tool, ts_unix, input_hi, input_lo, n_calls, metaset);
