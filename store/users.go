package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Roles a user may have.
const (
	RoleReviewer = "reviewer"
	RoleLead     = "lead"
	RoleCI       = "ci"
)

// User is someone who may label (reviewer), also adjudicate (lead), or only
// read dataset versions and score against them (ci).
type User struct {
	Name      string `json:"name"`
	Role      string `json:"role"`
	CreatedAt string `json:"created_at"`
}

// AddUser creates a user, or changes the role of an existing one
// (AddUserWithKeys without keys).
func (s *Store) AddUser(ctx context.Context, name, role string) error {
	return s.AddUserWithKeys(ctx, name, role, nil)
}

// User loads one user; ErrNotFound when there is none by that name.
func (s *Store) User(ctx context.Context, name string) (User, error) {
	var u User
	err := s.r.QueryRowContext(ctx, `SELECT name, role, created_at FROM users WHERE name = ?`, name).Scan(&u.Name, &u.Role, &u.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return u, fmt.Errorf("user %q: %w", name, ErrNotFound)
	}
	return u, err
}

// Users lists all users by name.
func (s *Store) Users(ctx context.Context) ([]User, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT name, role, created_at FROM users ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []User
	for rows.Next() {
		var u User
		if err := rows.Scan(&u.Name, &u.Role, &u.CreatedAt); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// UserCounts counts users by role.
func (s *Store) UserCounts(ctx context.Context) (map[string]int, error) {
	return queryCounts(ctx, s.r, `SELECT role, count(*) FROM users GROUP BY role`)
}
