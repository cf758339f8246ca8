-- Review and adjudication additions.

-- Project settings, changed by leads (e.g. review_agreed = 'true': agreed
-- items wait for a lead's acceptance instead of becoming gold at once).
CREATE TABLE settings (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_by TEXT NOT NULL DEFAULT '',
    updated_at TEXT NOT NULL
) STRICT;

-- Who a note is for: a JSON array of reviewer names; [] means everyone who
-- may see the item (send-back notes name the reviewers sent back to).
ALTER TABLE notes ADD COLUMN recipients TEXT NOT NULL DEFAULT '[]';
CREATE INDEX notes_item ON notes(item_id, id);

-- The lead's queue: disputes oldest first.
CREATE INDEX disputes_created ON disputes(created_at);
-- status: labels per reviewer.
CREATE INDEX labels_reviewer ON labels(reviewer);
