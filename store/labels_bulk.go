package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/goldtrace/goldtrace/review"
)

// SubmitLabels records many labels, each exactly as SubmitLabel would (items
// settle as their last label arrives), all or nothing, without holding the
// write lock for long: every label is first checked against the database
// with no lock held (a label that cannot be submitted fails the whole call
// before anything is written, as a *LabelError naming its index), then the
// labels are written in short transactions (bulkPace). If a transaction
// fails (a reviewer submitted the same assignment meanwhile, the disk is
// full, the context is cancelled), what the earlier ones wrote is undone
// from the rows they replaced, and the error is returned.
//
// Trade-offs: other connections see the labels arrive chunk by chunk, and
// may see them vanish if the import then fails; a process killed while
// writing leaves the labels written so far (each one complete), and
// importing the file again submits the rest (the ones stored are refused as
// already submitted: import with --skip-invalid).
func (s *Store) SubmitLabels(ctx context.Context, labels []review.Label) ([]Settlement, error) {
	return s.submitLabels(ctx, labels, defaultBulkPace)
}

func (s *Store) submitLabels(ctx context.Context, labels []review.Label, pace bulkPace) ([]Settlement, error) {
	for i, l := range labels {
		if err := s.checkSubmittable(ctx, l); err != nil {
			return nil, &LabelError{Index: i, Err: err}
		}
	}
	out := make([]Settlement, len(labels))
	var undo []labelUndo
	err := s.inChunks(ctx, len(labels), pace, func(tx *Tx, from int, deadline time.Time) (int, error) {
		var chunkUndo []labelUndo
		done := 0
		for i := from; i < len(labels) && (done == 0 || time.Now().Before(deadline)); i++ {
			u, err := snapshotLabel(ctx, tx, labels[i])
			if err != nil {
				return 0, &LabelError{Index: i, Err: err}
			}
			set, err := s.submitLabel(ctx, tx, labels[i])
			if err != nil {
				return 0, &LabelError{Index: i, Err: err}
			}
			out[i] = set
			chunkUndo = append(chunkUndo, u)
			done++
		}
		undo = append(undo, chunkUndo...) // only once the chunk is written
		return done, nil
	})
	if err != nil {
		if uerr := s.undoLabels(context.WithoutCancel(ctx), undo, pace); uerr != nil {
			return nil, fmt.Errorf("%w (and undoing the %d labels already written failed: %v)", err, len(undo), uerr)
		}
		return nil, err
	}
	return out, nil
}

// checkSubmittable is submitLabel's refusals, read without a lock.
func (s *Store) checkSubmittable(ctx context.Context, l review.Label) error {
	st, err := assignmentStatus(ctx, s.r, l.Item, l.Reviewer)
	if err != nil {
		return err
	}
	if st == AssignSubmitted {
		return fmt.Errorf("%s already submitted a label for %s: %w", l.Reviewer, l.Item, ErrConflict)
	}
	var itemStatus string
	if err := s.r.QueryRowContext(ctx, `SELECT status FROM items WHERE id = ?`, l.Item).Scan(&itemStatus); err != nil {
		return err
	}
	if itemStatus == review.GoldAdjudicated {
		return fmt.Errorf("item %s is already adjudicated: %w", l.Item, ErrConflict)
	}
	return nil
}

// labelUndo is what submitting one label replaced: the rows it changes,
// as they were.
type labelUndo struct {
	item, reviewer string
	rows           []savedRow
}

// savedRow is one row as it was (found) or its absence, by key.
type savedRow struct {
	table string
	where string // "item_id = ?" or "item_id = ? AND reviewer = ?"
	key   []any
	found bool
	cols  []string
	vals  []any
}

func snapshotLabel(ctx context.Context, tx *Tx, l review.Label) (labelUndo, error) {
	u := labelUndo{item: l.Item, reviewer: l.Reviewer}
	for _, r := range []struct {
		table, where string
		key          []any
	}{
		{"assignments", "item_id = ? AND reviewer = ?", []any{l.Item, l.Reviewer}},
		{"drafts", "item_id = ? AND reviewer = ?", []any{l.Item, l.Reviewer}},
		{"items", "id = ?", []any{l.Item}},
		{"gold", "item_id = ?", []any{l.Item}},
		{"disputes", "item_id = ?", []any{l.Item}},
	} {
		row, err := saveRow(ctx, tx, r.table, r.where, r.key)
		if err != nil {
			return u, err
		}
		u.rows = append(u.rows, row)
	}
	return u, nil
}

func saveRow(ctx context.Context, tx *Tx, table, where string, key []any) (savedRow, error) {
	row := savedRow{table: table, where: where, key: key}
	rows, err := tx.QueryContext(ctx, `SELECT * FROM `+table+` WHERE `+where, key...)
	if err != nil {
		return row, err
	}
	defer rows.Close()
	if row.cols, err = rows.Columns(); err != nil {
		return row, err
	}
	if rows.Next() {
		row.found = true
		row.vals = make([]any, len(row.cols))
		ptrs := make([]any, len(row.cols))
		for i := range ptrs {
			ptrs[i] = &row.vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return row, err
		}
	}
	return row, rows.Err()
}

// restore puts the row back as it was: rows others refer to (assignments,
// items) are updated in place, the others deleted and re-inserted.
func (r savedRow) restore(ctx context.Context, tx *Tx) error {
	switch {
	case r.table == "assignments" || r.table == "items":
		if !r.found {
			return nil
		}
		sets := make([]string, len(r.cols))
		for i, c := range r.cols {
			sets[i] = c + " = ?"
		}
		_, err := tx.ExecContext(ctx, `UPDATE `+r.table+` SET `+strings.Join(sets, ", ")+` WHERE `+r.where, append(append([]any{}, r.vals...), r.key...)...)
		return err
	default:
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+r.table+` WHERE `+r.where, r.key...); err != nil {
			return err
		}
		if !r.found {
			return nil
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO `+r.table+`(`+strings.Join(r.cols, ", ")+`) VALUES (?`+strings.Repeat(", ?", len(r.cols)-1)+`)`, r.vals...)
		return err
	}
}

// undoLabels takes back written labels, the last first, in short
// transactions.
func (s *Store) undoLabels(ctx context.Context, undo []labelUndo, pace bulkPace) error {
	return s.inChunks(ctx, len(undo), pace, func(tx *Tx, from int, deadline time.Time) (int, error) {
		done := 0
		for i := len(undo) - 1 - from; i >= 0 && (done == 0 || time.Now().Before(deadline)); i-- {
			u := undo[i]
			if _, err := tx.ExecContext(ctx, `DELETE FROM labels WHERE item_id = ? AND reviewer = ?`, u.item, u.reviewer); err != nil {
				return 0, err
			}
			for _, r := range u.rows {
				if err := r.restore(ctx, tx); err != nil {
					return 0, fmt.Errorf("undo %s of %s: %w", r.table, u.item, err)
				}
			}
			done++
		}
		return done, nil
	})
}
