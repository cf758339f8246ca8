package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// UserKey is one SSH public key of a user: in team mode whoever holds the
// private half acts as that user.
type UserKey struct {
	// Fingerprint is the key's SHA256 fingerprint ("SHA256:…"), unique
	// across users.
	Fingerprint string `json:"fingerprint"`
	// Key is the authorized_keys line: type, base64 blob and comment.
	Key     string `json:"key"`
	AddedAt string `json:"added_at"`
}

// AddUserWithKeys creates a user (or changes an existing user's role) and
// adds keys to them in one transaction: a key that already belongs to
// another user refuses the whole change (ErrConflict), so nothing is half
// written. A key the user already has is left as it is.
func (s *Store) AddUserWithKeys(ctx context.Context, name, role string, keys []UserKey) error {
	if err := checkRole(name, role); err != nil {
		return err
	}
	return s.WithTx(ctx, func(tx *Tx) error {
		if role != RoleLead {
			if err := keepALead(ctx, tx, name); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO users(name, role, created_at) VALUES (?, ?, ?)
			ON CONFLICT(name) DO UPDATE SET role = excluded.role`, name, role, s.now()); err != nil {
			return err
		}
		for _, k := range keys {
			if err := s.addKey(ctx, tx, name, k); err != nil {
				return err
			}
		}
		return nil
	})
}

// keepALead refuses, inside the writing transaction, a change that would
// take the project's only lead away (a demotion or a removal of name): two
// leads demoting or removing each other at once must not both pass the
// app's earlier check and leave no lead, which would reopen the bootstrap
// rule to anyone.
func keepALead(ctx context.Context, tx *Tx, name string) error {
	var isLead, leads int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE name = ?), count(*) FROM users WHERE role = 'lead'`, name).Scan(&isLead, &leads); err != nil {
		return err
	}
	if isLead == 1 && leads == 1 {
		return fmt.Errorf("%s is the project's only lead: add another lead first: %w", name, ErrConflict)
	}
	return nil
}

// AddUserKey adds a key to an existing user (ErrNotFound when there is no
// such user, ErrConflict when the key belongs to someone else).
func (s *Store) AddUserKey(ctx context.Context, name string, k UserKey) error {
	return s.WithTx(ctx, func(tx *Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM users WHERE name = ?`, name).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("user %q: %w", name, ErrNotFound)
		}
		return s.addKey(ctx, tx, name, k)
	})
}

func (s *Store) addKey(ctx context.Context, tx *Tx, name string, k UserKey) error {
	var owner string
	err := tx.QueryRowContext(ctx, `SELECT "user" FROM user_keys WHERE fingerprint = ?`, k.Fingerprint).Scan(&owner)
	switch {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return err
	case owner == name:
		return nil
	default:
		return fmt.Errorf("key %s already belongs to %s (a key identifies one user): %w", k.Fingerprint, owner, ErrConflict)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO user_keys(fingerprint, "user", key, added_at) VALUES (?, ?, ?, ?)`,
		k.Fingerprint, name, k.Key, s.now())
	return err
}

// RemoveUserKey removes one of a user's keys, by fingerprint; ErrNotFound
// when the user has no such key.
func (s *Store) RemoveUserKey(ctx context.Context, name, fingerprint string) error {
	return s.WithTx(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM user_keys WHERE "user" = ? AND fingerprint = ?`, name, fingerprint)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("user %q has no key %s: %w", name, fingerprint, ErrNotFound)
		}
		return s.keysRemoved(ctx, tx)
	})
}

// RemoveUser takes a user out of the project: their keys go at once (an SSH
// client holding one is refused from then on), and so does the user when
// nothing refers to them. A user with assignments, labels or adjudications
// stays listed with no keys, because that work names them; kept says so.
func (s *Store) RemoveUser(ctx context.Context, name string) (kept bool, err error) {
	err = s.WithTx(ctx, func(tx *Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM users WHERE name = ?`, name).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("user %q: %w", name, ErrNotFound)
		}
		if err := keepALead(ctx, tx, name); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM user_keys WHERE "user" = ?`, name); err != nil {
			return err
		}
		if err := s.keysRemoved(ctx, tx); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT
			(SELECT count(*) FROM assignments WHERE reviewer = ?1) +
			(SELECT count(*) FROM labels WHERE reviewer = ?1) +
			(SELECT count(*) FROM adjudications WHERE lead = ?1)`, name).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			kept = true
			return nil
		}
		_, err := tx.ExecContext(ctx, `DELETE FROM users WHERE name = ?`, name)
		return err
	})
	return kept, err
}

// KeyUser is the user a key fingerprint belongs to; ErrNotFound when the key
// is nobody's. The SSH server asks this before a session reads anything.
func (s *Store) KeyUser(ctx context.Context, fingerprint string) (User, error) {
	var u User
	err := s.r.QueryRowContext(ctx, `SELECT u.name, u.role, u.created_at FROM user_keys k
		JOIN users u ON u.name = k."user" WHERE k.fingerprint = ?`, fingerprint).Scan(&u.Name, &u.Role, &u.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return u, fmt.Errorf("key %s: %w", fingerprint, ErrNotFound)
	}
	return u, err
}

// UserWithKey loads a user and says whether the key with fingerprint
// (may be "") is still theirs, in one read: what every action of an SSH
// session checks before it runs. ErrNotFound when there is no such user.
func (s *Store) UserWithKey(ctx context.Context, name, fingerprint string) (u User, keyIsTheirs bool, err error) {
	var owner sql.NullString
	err = s.r.QueryRowContext(ctx, userCheckQuery, name, fingerprint).
		Scan(&u.Name, &u.Role, &u.CreatedAt, &owner)
	if errors.Is(err, sql.ErrNoRows) {
		return u, false, fmt.Errorf("user %q: %w", name, ErrNotFound)
	}
	return u, owner.Valid && owner.String == name, err
}

// UserKeys lists every user's keys, by user name, each user's in the order
// they were added.
func (s *Store) UserKeys(ctx context.Context) (map[string][]UserKey, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT "user", fingerprint, key, added_at FROM user_keys ORDER BY "user", added_at, fingerprint`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]UserKey{}
	for rows.Next() {
		var name string
		var k UserKey
		if err := rows.Scan(&name, &k.Fingerprint, &k.Key, &k.AddedAt); err != nil {
			return nil, err
		}
		out[name] = append(out[name], k)
	}
	return out, rows.Err()
}

// checkRole refuses an empty name and a role the users table does not know.
func checkRole(name, role string) error {
	if name == "" {
		return errors.New("user name is empty")
	}
	switch role {
	case RoleReviewer, RoleLead, RoleCI:
		return nil
	}
	return fmt.Errorf("role %q: must be %s, %s or %s", role, RoleReviewer, RoleLead, RoleCI)
}
