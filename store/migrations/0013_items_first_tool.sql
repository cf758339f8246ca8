-- items_first_tool served one query, the `traces` summary's count of items
-- per first tool, which items_sampling (it holds first_tool) serves too: a
-- scan of 543k items in 0.6 s instead of 0.2 s. Its entries cost every
-- import one index insert per item (an eighth of the item's index work).
DROP INDEX items_first_tool;
