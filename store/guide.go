package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// GuideVersion is one stored version of the labeling guide.
type GuideVersion struct {
	ID        string `json:"id"`
	Body      string `json:"body,omitempty"`
	Author    string `json:"author"`
	CreatedAt string `json:"created_at"`
	Seq       int    `json:"seq"`
}

// SetGuide makes body (whose id the guide package computed) the guide in
// force. Setting the text in force again changes nothing (changed false);
// setting an older text again brings that version back into force.
func (s *Store) SetGuide(ctx context.Context, id, body, author string) (v GuideVersion, changed bool, err error) {
	err = s.WithTx(ctx, func(tx *Tx) error {
		cur, err := currentGuide(ctx, tx)
		if err == nil && cur.ID == id {
			v = cur
			// Rolled back: an audit entry the context carries is not
			// written for a change that was not made.
			return errUnchanged
		} else if err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		var next int
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) + 1 FROM guides`).Scan(&next); err != nil {
			return err
		}
		now := s.now()
		res, err := tx.ExecContext(ctx, `UPDATE guides SET seq = ? WHERE id = ?`, next, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			if _, err := tx.ExecContext(ctx, `INSERT INTO guides(id, body, author, created_at, seq) VALUES (?, ?, ?, ?, ?)`,
				id, body, author, now, next); err != nil {
				return err
			}
		}
		changed = true
		v, err = guideBy(ctx, tx, `id = ?`, id)
		return err
	})
	if errors.Is(err, errUnchanged) {
		err = nil
	}
	return v, changed, err
}

// errUnchanged rolls back a transaction that found nothing to change.
var errUnchanged = errors.New("nothing to change")

// EnsureGuide returns the guide in force, storing body (the default guide)
// as the first version when none was ever set.
func (s *Store) EnsureGuide(ctx context.Context, id, body, author string) (GuideVersion, error) {
	v, err := s.CurrentGuide(ctx)
	if !errors.Is(err, ErrNotFound) {
		return v, err
	}
	v, _, err = s.SetGuide(ctx, id, body, author)
	return v, err
}

// CurrentGuide is the guide in force; ErrNotFound when none was ever set.
func (s *Store) CurrentGuide(ctx context.Context) (GuideVersion, error) {
	return currentGuide(ctx, s.r)
}

func currentGuide(ctx context.Context, q Queryer) (GuideVersion, error) {
	return guideBy(ctx, q, currentGuideWhere)
}

// Guide loads one guide version by id.
func (s *Store) Guide(ctx context.Context, id string) (GuideVersion, error) {
	return guideBy(ctx, s.r, `id = ?`, id)
}

func guideBy(ctx context.Context, q Queryer, where string, args ...any) (GuideVersion, error) {
	var v GuideVersion
	err := v.scan(q.QueryRowContext(ctx, guideQuery+where, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return v, fmt.Errorf("guide: %w", ErrNotFound)
	}
	return v, err
}

// currentGuideWhere picks the guide in force.
const currentGuideWhere = `seq = (SELECT max(seq) FROM guides)`

// guideQuery selects guide versions (scan), given the WHERE clause.
const guideQuery = `SELECT id, body, author, created_at, seq FROM guides WHERE `

func (v *GuideVersion) scan(r scanner) error {
	return r.Scan(&v.ID, &v.Body, &v.Author, &v.CreatedAt, &v.Seq)
}

// GuideLog lists guide versions, the one in force first, without bodies,
// with how many submitted labels used each.
func (s *Store) GuideLog(ctx context.Context) ([]GuideVersion, map[string]int, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id, author, created_at, seq FROM guides ORDER BY seq DESC`)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var out []GuideVersion
	for rows.Next() {
		var v GuideVersion
		if err := rows.Scan(&v.ID, &v.Author, &v.CreatedAt, &v.Seq); err != nil {
			return nil, nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	used := map[string]int{}
	urows, err := s.r.QueryContext(ctx, `SELECT guide_version, count(*) FROM labels GROUP BY guide_version`)
	if err != nil {
		return nil, nil, err
	}
	defer urows.Close()
	for urows.Next() {
		var id string
		var n int
		if err := urows.Scan(&id, &n); err != nil {
			return nil, nil, err
		}
		used[id] = n
	}
	return out, used, urows.Err()
}
