-- Covering indexes for goldtrace status: progress per (batch, reviewer,
-- status) and the median seconds per reviewer are read from indexes instead
-- of sorting every assignment and label.
CREATE INDEX assignments_progress ON assignments(batch, reviewer, status);
DROP INDEX labels_reviewer;
CREATE INDEX labels_seconds ON labels(reviewer, seconds);
