-- Exported content is stored compressed: content_encoding says how the
-- content BLOB is encoded ('identity': the JSONL bytes as written; 'gzip': a
-- gzip stream, possibly of several members, of those bytes). The sha256 is
-- always over the JSONL bytes. The immutability triggers cover the new
-- column too (they refuse any UPDATE or DELETE of a row).
ALTER TABLE datasets ADD COLUMN content_encoding TEXT NOT NULL DEFAULT 'identity'
    CHECK (content_encoding IN ('identity', 'gzip'));
