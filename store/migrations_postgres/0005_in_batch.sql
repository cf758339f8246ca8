-- in_batch: 1 exactly when status is not 'new', and items_sampled_inputs
-- partial on it, as SQLite's migration in_batch (where an index partial on
-- status was rewritten by every status change a label makes). It reads
-- every item to build the index:
-- migrate: notice: marking the items in a batch and rebuilding the index of their inputs, once (a few seconds per 500k items)
ALTER TABLE items ADD COLUMN in_batch BIGINT NOT NULL DEFAULT 0;
DROP INDEX items_sampled_inputs;
UPDATE items SET in_batch = 1 WHERE status <> 'new';
CREATE INDEX items_sampled_inputs ON items(input_hash) WHERE in_batch = 1;
