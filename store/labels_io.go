package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/store/postgres"
)

// NextAssignment is the reviewer's next open assignment (drafts first, then
// in batch order), optionally in one batch; ErrNotFound when the queue is
// empty. It asks batch by batch for the first row in position order, which
// the (reviewer, status, position) index answers without sorting, so it
// stays fast on very large queues.
func (s *Store) NextAssignment(ctx context.Context, reviewer, batch string) (Assignment, error) {
	if s.pg {
		// The same questions in one statement: a round trip each is
		// what costs on PostgreSQL.
		// (It carries ctx's UserCheck, in the same round trip.)
		var a Assignment
		found := false
		err := s.readChecked(ctx, postgres.Stmt{Query: pgNextAssignment, Args: []any{reviewer, batch}, Rows: func(r postgres.Row) error {
			var err error
			a, err = scanAssignment(r)
			found = true
			return err
		}})
		if err == nil && !found {
			return Assignment{}, fmt.Errorf("%s has nothing left to label: %w", reviewer, ErrNotFound)
		}
		return a, err
	}
	// A batch still being written (state 'writing') is in nobody's queue.
	batches, err := queryStrings(ctx, s.r, `SELECT name FROM batches WHERE state = 'ready' AND (?1 = '' OR name = ?1) ORDER BY name`, batch)
	if err != nil {
		return Assignment{}, err
	}
	for _, status := range []string{AssignDraft, AssignPending} {
		for _, b := range batches {
			a, err := scanAssignment(s.r.QueryRowContext(ctx, `SELECT `+assignmentColumns+`
				FROM assignments WHERE reviewer = ? AND status = ? AND batch = ? ORDER BY position LIMIT 1`, reviewer, status, b))
			if err == nil {
				return a, nil
			} else if !errors.Is(err, sql.ErrNoRows) {
				return a, err
			}
		}
	}
	return Assignment{}, fmt.Errorf("%s has nothing left to label: %w", reviewer, ErrNotFound)
}

// pgNextAssignment is NextAssignment's queries in one: the first row in
// position order of each (status, batch), drafts first, then by batch.
const pgNextAssignment = `SELECT a.item_id, a.reviewer, a.batch, a.position, a.status, a.skip_reason, a.updated_at
	FROM (VALUES (0, 'draft'), (1, 'pending')) AS s(o, status)
	CROSS JOIN (SELECT name FROM batches WHERE state = 'ready' AND ($2 = '' OR name = $2)) AS b
	CROSS JOIN LATERAL (SELECT ` + assignmentColumns + ` FROM assignments
		WHERE reviewer = $1 AND status = s.status AND batch = b.name ORDER BY position LIMIT 1) AS a
	ORDER BY s.o, b.name LIMIT 1`

// Assignment loads one (item, reviewer) assignment; ErrNotFound when the
// reviewer is not assigned the item or its batch is still being written.
func (s *Store) Assignment(ctx context.Context, itemID, reviewer string) (Assignment, error) {
	a, err := scanAssignment(s.r.QueryRowContext(ctx, `SELECT `+assignmentColumns+`
		FROM assignments WHERE item_id = ? AND reviewer = ?
		AND batch NOT IN (SELECT name FROM batches WHERE state = 'writing')`, itemID, reviewer))
	if errors.Is(err, sql.ErrNoRows) {
		return a, fmt.Errorf("%s is not assigned item %s: %w", reviewer, itemID, ErrNotFound)
	}
	return a, err
}

// LabelError says which label of a batch failed.
type LabelError struct {
	Index int
	Err   error
}

func (e *LabelError) Error() string { return e.Err.Error() }
func (e *LabelError) Unwrap() error { return e.Err }

// LabelFilter selects labels to export; empty fields match everything.
type LabelFilter struct {
	Batch    string
	Reviewer string
}

// Labels streams submitted labels (by item, then reviewer) to fn.
func (s *Store) Labels(ctx context.Context, f LabelFilter, fn func(review.Label) error) error {
	rows, err := s.r.QueryContext(ctx, `SELECT `+labelColumns+`
		FROM labels l JOIN assignments a ON a.item_id = l.item_id AND a.reviewer = l.reviewer
		WHERE (? = '' OR a.batch = ?) AND (? = '' OR l.reviewer = ?)
		ORDER BY l.item_id, l.reviewer`, f.Batch, f.Batch, f.Reviewer, f.Reviewer)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		l, err := scanLabel(rows)
		if err != nil {
			return err
		}
		if err := fn(l); err != nil {
			return err
		}
	}
	return rows.Err()
}
