-- goldtrace status counts a batch's items per status: with the item id in
-- the status index that count reads the index alone (one probe per item into
-- assignments and gold) instead of each item's row. It replaces the plain
-- status index, which it serves as well.
DROP INDEX items_status;
CREATE INDEX items_status ON items(status, id);
