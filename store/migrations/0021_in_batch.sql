-- items_sampled_inputs (the input hashes of the items in a batch, read by
-- sampling) was partial on status != 'new'. An index whose WHERE names a
-- column is rewritten by every UPDATE that sets the column, so each status
-- change a label makes (sampled, labeling, agreed, disputed) deleted and
-- reinserted the item's entry: about a tenth of the CPU a 50k-label import
-- spends writing (0.2-0.3 of 2.8 CPU-s). in_batch is 1 exactly when status
-- is not 'new' (a batch draws the item, and only removing the last batch
-- holding it sets it back), and only those two changes write it; the index
-- is partial on it instead.
-- goldtrace check verifies that in_batch agrees with status (no CHECK
-- constraint: adding one reads every row).
--
-- Building the index reads every item: 1.2 s on the 1 GB bench store
-- (543k items) on a quiet machine, several seconds on a loaded one, so
-- opening a store that needs it says so first:
-- migrate: notice: marking the items in a batch and rebuilding the index of their inputs, once (a few seconds per 500k items)
ALTER TABLE items ADD COLUMN in_batch INTEGER NOT NULL DEFAULT 0;
DROP INDEX items_sampled_inputs;
UPDATE items SET in_batch = 1 WHERE status != 'new';
CREATE INDEX items_sampled_inputs ON items(input_hash) WHERE in_batch = 1;
