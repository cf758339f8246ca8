-- The input hash's first and second 64 bits as numbers, in the sampling
-- index in place of the hash: as SQLite's migration input_keys (both 0 when
-- input_hash is not 64 lowercase hex digits). It rewrites every item row:
-- migrate: notice: giving every item its input key and rebuilding the sampling index, once (about 10 s per 500k items)
ALTER TABLE items ADD COLUMN input_hi BIGINT NOT NULL DEFAULT 0, ADD COLUMN input_lo BIGINT NOT NULL DEFAULT 0;
DROP INDEX items_sampling;
UPDATE items SET
    input_hi = ('x' || substr(input_hash, 1, 16))::bit(64)::bigint,
    input_lo = ('x' || substr(input_hash, 17, 16))::bit(64)::bigint
    WHERE input_hash ~ '^[0-9a-f]{64}$';
CREATE INDEX items_sampling ON items(ts_unix, trace_id, turn, n_calls, first_tool, input_hi, input_lo, metaset);
