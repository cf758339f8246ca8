package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/goldtrace/goldtrace/store/postgres"
)

// UserCheck asks a store read to load, in its own round trip, what
// UserWithKey loads: the user Name and whether the SSH key Fingerprint is
// still theirs. The caller decides from it (the store decides nothing) and
// discards what the read returned when it refuses. Only the reads that
// say so carry it, and only on PostgreSQL (ChecksUsersInReads), where a
// round trip of its own wakes a server backend; Done says whether a read
// carried it.
type UserCheck struct {
	Name, Fingerprint string
	// Filled by the read that carried the check:
	User        User
	Found       bool // the user exists
	KeyIsTheirs bool
	// Then, when set, is called once the check is filled: by a write
	// (SubmitLabel, SkipItem on PostgreSQL) in its transaction's first
	// round, before the round that commits. Its error ends the write,
	// rolled back, and comes back as is: the caller's decision, made while
	// the write's locks hold the user and their keys as read.
	Then func(*UserCheck) error
	// Roles, when not nil, lets a write whose first round commits (a
	// draft's autosave, which is not audited) carry the check in that
	// one round trip: after the check, an assertion ends the transaction
	// before anything is written unless the user exists with one of
	// Roles and, when NeedKey, the key Fingerprint is theirs. That is the
	// caller's decision written out (its action's roles, from its table),
	// which Then makes again from what the check read: both see the same
	// user and keys, as users and keys change only in writes that run
	// alone (never beside the write that carries the check).
	Roles   []string
	NeedKey bool
	done    bool
}

// errUserRefused is a guarded write's round refused by the UserCheck's
// assertion (Roles); Then says why.
var errUserRefused = errors.New("the user check refused the write")

// userGuardQuery is the assertion of a UserCheck with Roles ($1 the
// name, $2 the fingerprint, $3 the roles, $4 NeedKey): a division by zero
// unless the user may write.
const userGuardQuery = `SELECT 1 / (EXISTS (SELECT 1 FROM users WHERE name = $1 AND role = ANY($3)
	AND (NOT $4 OR EXISTS (SELECT 1 FROM user_keys WHERE fingerprint = $2 AND "user" = $1))))::int`

// guard is c's assertion (userGuardQuery).
func (c *UserCheck) guard() postgres.Stmt {
	return postgres.Stmt{Query: userGuardQuery, Args: []any{c.Name, c.Fingerprint, c.Roles, c.NeedKey}, Assert: errUserRefused}
}

type userCheckKey struct{}

// WithUserCheck returns ctx asking the next read that can to carry c.
func WithUserCheck(ctx context.Context, c *UserCheck) context.Context {
	return context.WithValue(ctx, userCheckKey{}, c)
}

// Done reports whether a read carried the check (its fields are then
// filled).
func (c *UserCheck) Done() bool { return c.done }

// Err is UserWithKey's error for the check: ErrNotFound when the user does
// not exist.
func (c *UserCheck) Err() error {
	if !c.Found {
		return fmt.Errorf("user %q: %w", c.Name, ErrNotFound)
	}
	return nil
}

// ChecksUsersInReads reports whether the reads that can carry a UserCheck
// do (PostgreSQL): on SQLite the caller reads the user first, as a read is
// in-process and cheap.
func (s *Store) ChecksUsersInReads() bool { return s.pg }

// userCheckQuery is UserWithKey's query.
const userCheckQuery = `SELECT name, role, created_at,
		(SELECT "user" FROM user_keys WHERE fingerprint = ?2) FROM users WHERE name = ?1`

// readChecked runs stmts in one round trip (postgres.DB.Read) with, when
// ctx asks for one not yet done, the UserCheck's statement first: the
// check sees the state at the moment of the read.
func (s *Store) readChecked(ctx context.Context, stmts ...postgres.Stmt) error {
	c := pendingUserCheck(ctx)
	if c == nil {
		return s.db.(*postgres.DB).Read(ctx, stmts...)
	}
	check, fill := c.stmt()
	if err := s.db.(*postgres.DB).Read(ctx, append([]postgres.Stmt{check}, stmts...)...); err != nil {
		return err
	}
	fill()
	return nil
}

// pendingUserCheck is ctx's UserCheck when no read has carried it yet.
func pendingUserCheck(ctx context.Context) *UserCheck {
	c, _ := ctx.Value(userCheckKey{}).(*UserCheck)
	if c == nil || c.done {
		return nil
	}
	return c
}

// writeUserCheck is ctx's UserCheck when it has a Then: a write carries
// it in its first round, done or not (a transaction begun again decides
// again).
func writeUserCheck(ctx context.Context) *UserCheck {
	c, _ := ctx.Value(userCheckKey{}).(*UserCheck)
	if c == nil || c.Then == nil {
		return nil
	}
	return c
}

// stmt is the check's statement, and fill, to call once it ran, fills c
// from what it read.
func (c *UserCheck) stmt() (stmt postgres.Stmt, fill func()) {
	var u User
	var owner sql.NullString
	found := false
	return postgres.Stmt{Query: userCheckQuery, Args: []any{c.Name, c.Fingerprint}, Rows: func(r postgres.Row) error {
			found = true
			return r.Scan(&u.Name, &u.Role, &u.CreatedAt, &owner)
		}}, func() {
			c.User, c.Found, c.KeyIsTheirs, c.done = u, found, found && owner.Valid && owner.String == c.Name, true
		}
}
