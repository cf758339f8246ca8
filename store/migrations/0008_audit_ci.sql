-- migrate: foreign_keys=off
-- Team mode (issue 12): the ci role, and the audit log.
--
-- users gains 'ci' in its role CHECK. SQLite cannot change a CHECK in place,
-- so the table is rebuilt (SQLite's documented 12-step procedure). The
-- marker on the first line makes store.migrate run this migration with
-- foreign_keys off: with them on, DROP TABLE users would fail on the rows
-- that reference users (labels, assignments, adjudications, keys) or
-- cascade into them. foreign_key_check runs before the commit, so a
-- rebuild that broke a reference is rolled back.
CREATE TABLE users_new (
    name       TEXT PRIMARY KEY,
    role       TEXT NOT NULL CHECK (role IN ('reviewer', 'lead', 'ci')),
    created_at TEXT NOT NULL
) STRICT;
INSERT INTO users_new(name, role, created_at) SELECT name, role, created_at FROM users;
DROP TABLE users;
ALTER TABLE users_new RENAME TO users;

-- Every write and every lead read, and every refusal, as app performed it.
CREATE TABLE audit (
    id              INTEGER PRIMARY KEY,
    at              TEXT NOT NULL,                 -- RFC 3339
    actor           TEXT NOT NULL DEFAULT '',      -- '' when no identity was given
    role            TEXT NOT NULL DEFAULT '',
    source          TEXT NOT NULL CHECK (source IN ('local', 'ssh')),
    key_fingerprint TEXT NOT NULL DEFAULT '',      -- SHA256:… for ssh
    action          TEXT NOT NULL,
    object          TEXT NOT NULL DEFAULT '',
    outcome         TEXT NOT NULL DEFAULT 'ok' CHECK (outcome IN ('ok', 'denied'))
) STRICT;
CREATE INDEX audit_actor ON audit(actor, id);
