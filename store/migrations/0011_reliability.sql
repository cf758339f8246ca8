-- Reliability bookkeeping (issue 18).

-- What the store keeps about itself, e.g. 'quick_check_at': when the last
-- quick integrity check passed (RFC 3339). Write commands run one on open
-- when it is more than a day old.
CREATE TABLE store_state (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT;

-- A batch is written in short transactions: it is 'writing' (hidden from
-- queues, status and listings) until its last chunk commits and flips it to
-- 'ready' in one statement. heartbeat_at is renewed by every chunk, so a
-- 'writing' batch whose writer was killed is recognised (no heartbeat for a
-- minute) and removed by the next sample or reported by `goldtrace check`.
ALTER TABLE batches ADD COLUMN state TEXT NOT NULL DEFAULT 'ready'
    CHECK (state IN ('writing', 'ready'));
ALTER TABLE batches ADD COLUMN heartbeat_at TEXT NOT NULL DEFAULT '';
