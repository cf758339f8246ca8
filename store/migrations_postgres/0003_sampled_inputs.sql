-- The input hashes of the items that have left status 'new' (those in a
-- batch): as SQLite's 0019_sampled_inputs.sql.
CREATE INDEX items_sampled_inputs ON items(input_hash) WHERE status != 'new';
