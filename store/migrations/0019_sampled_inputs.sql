-- The inputs already sampled (sample --exclude-sampled, the default) are
-- those of the items that have left status 'new', which an item does when
-- a batch draws it and leaves only when the last batch holding it is
-- removed (store.removeBatch). Reading them joined each batch item to its
-- item row, a random page read per sampled item: a quarter of a second per
-- sample once a project has sampled 50k items. This index holds exactly
-- those hashes, in order.
CREATE INDEX items_sampled_inputs ON items(input_hash) WHERE status != 'new';
