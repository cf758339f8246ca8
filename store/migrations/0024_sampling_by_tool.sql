-- Sampling reads items_sampling whole, and what each of its half a million
-- rows (on a 1 GB store) costs is mostly the columns the driver hands over:
-- the first tool as text, a string made per row, was the dearest. The index
-- now leads with first_tool, then the input key: a scan reads it one tool
-- (one --by tool stratum) at a time, so the tool is the query's parameter,
-- not a column, and in slices of the input key's range, so that the copies
-- of an input are read by one reader, which keeps the earliest itself
-- (sampling.Sampler.AddCopy) instead of every scan reading the items in
-- time order through one set of every input. The timestamp stays, to tell
-- the earliest copy; trace id and turn go (read for the rare copies of one
-- input at the same second).
--
-- Rebuilding it reads every item: about 2 s per 500k items, so opening a
-- store that needs it says so first:
-- migrate: notice: rebuilding the sampling index, once (a few seconds per 500k items)
DROP INDEX items_sampling;
CREATE INDEX items_sampling ON items(first_tool, input_hi, input_lo, ts_unix, n_calls, metaset);
