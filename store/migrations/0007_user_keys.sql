-- SSH public keys: in team mode (goldtrace serve) a user is whoever holds one
-- of their keys. A key belongs to one user only: its SHA256 fingerprint is
-- unique across users. No ON DELETE action: removing a user removes their
-- keys explicitly (store.RemoveUser), and a users table rebuild in a later
-- migration leaves these rows alone.
CREATE TABLE user_keys (
    fingerprint TEXT PRIMARY KEY CHECK (fingerprint LIKE 'SHA256:%'),
    user        TEXT NOT NULL REFERENCES users(name),
    key         TEXT NOT NULL,                  -- the authorized_keys line: type, base64, comment
    added_at    TEXT NOT NULL
) STRICT;
CREATE INDEX user_keys_user ON user_keys(user);
