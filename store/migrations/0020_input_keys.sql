-- Sampling reads items_sampling whole (half a million entries on a 1 GB
-- store), and the input hash, 64 hex digits, was half of each entry: the
-- index was 64 MB and each of its rows a 64-byte string made for the
-- scan. The sampler tells inputs apart by the hash's first 128 bits
-- (sampling.hashKey); they are now two integers, input_hi and input_lo,
-- the first and second 64 bits as signed (two's complement) numbers, and
-- the index holds them in place of the hash. Both are 0 when input_hash
-- is not 64 lowercase hex digits (no goldtrace writes such a hash), and
-- sampling then reads input_hash itself (as it does for the one hash in
-- 2^128 whose first 128 bits are 0).
--
-- The index no longer holds the status either: sampling leaves out the
-- items in a batch by their rows (read from items_status), and a batch or
-- a label that changes an item's status no longer rewrites its entry.
--
-- This rewrites every item row and rebuilds the index: 8 CPU seconds on
-- the 1 GB bench store (543k items; 13 s wall at a load average of 9 on
-- 2 cores), so opening a store that needs it says so first:
-- migrate: notice: giving every item its input key and rebuilding the sampling index, once (about 10 s per 500k items)
ALTER TABLE items ADD COLUMN input_hi INTEGER NOT NULL DEFAULT 0;
ALTER TABLE items ADD COLUMN input_lo INTEGER NOT NULL DEFAULT 0;
DROP INDEX items_sampling;
-- A binary operator's precedence: - before <<, << and | left to right,
-- hence the parentheses around each digit.
UPDATE items SET
  input_hi =
    ((instr('0123456789abcdef', substr(input_hash, 1, 1)) - 1 << 60) |
     (instr('0123456789abcdef', substr(input_hash, 2, 1)) - 1 << 56) |
     (instr('0123456789abcdef', substr(input_hash, 3, 1)) - 1 << 52) |
     (instr('0123456789abcdef', substr(input_hash, 4, 1)) - 1 << 48) |
     (instr('0123456789abcdef', substr(input_hash, 5, 1)) - 1 << 44) |
     (instr('0123456789abcdef', substr(input_hash, 6, 1)) - 1 << 40) |
     (instr('0123456789abcdef', substr(input_hash, 7, 1)) - 1 << 36) |
     (instr('0123456789abcdef', substr(input_hash, 8, 1)) - 1 << 32) |
     (instr('0123456789abcdef', substr(input_hash, 9, 1)) - 1 << 28) |
     (instr('0123456789abcdef', substr(input_hash, 10, 1)) - 1 << 24) |
     (instr('0123456789abcdef', substr(input_hash, 11, 1)) - 1 << 20) |
     (instr('0123456789abcdef', substr(input_hash, 12, 1)) - 1 << 16) |
     (instr('0123456789abcdef', substr(input_hash, 13, 1)) - 1 << 12) |
     (instr('0123456789abcdef', substr(input_hash, 14, 1)) - 1 << 8) |
     (instr('0123456789abcdef', substr(input_hash, 15, 1)) - 1 << 4) |
     (instr('0123456789abcdef', substr(input_hash, 16, 1)) - 1 << 0)),
  input_lo =
    ((instr('0123456789abcdef', substr(input_hash, 17, 1)) - 1 << 60) |
     (instr('0123456789abcdef', substr(input_hash, 18, 1)) - 1 << 56) |
     (instr('0123456789abcdef', substr(input_hash, 19, 1)) - 1 << 52) |
     (instr('0123456789abcdef', substr(input_hash, 20, 1)) - 1 << 48) |
     (instr('0123456789abcdef', substr(input_hash, 21, 1)) - 1 << 44) |
     (instr('0123456789abcdef', substr(input_hash, 22, 1)) - 1 << 40) |
     (instr('0123456789abcdef', substr(input_hash, 23, 1)) - 1 << 36) |
     (instr('0123456789abcdef', substr(input_hash, 24, 1)) - 1 << 32) |
     (instr('0123456789abcdef', substr(input_hash, 25, 1)) - 1 << 28) |
     (instr('0123456789abcdef', substr(input_hash, 26, 1)) - 1 << 24) |
     (instr('0123456789abcdef', substr(input_hash, 27, 1)) - 1 << 20) |
     (instr('0123456789abcdef', substr(input_hash, 28, 1)) - 1 << 16) |
     (instr('0123456789abcdef', substr(input_hash, 29, 1)) - 1 << 12) |
     (instr('0123456789abcdef', substr(input_hash, 30, 1)) - 1 << 8) |
     (instr('0123456789abcdef', substr(input_hash, 31, 1)) - 1 << 4) |
     (instr('0123456789abcdef', substr(input_hash, 32, 1)) - 1 << 0))
  WHERE length(input_hash) = 64 AND input_hash NOT GLOB '*[^0-9a-f]*';
CREATE INDEX items_sampling ON items(ts_unix, trace_id, turn, n_calls, first_tool, input_hi, input_lo, metaset);
