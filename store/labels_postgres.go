package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/store/postgres"
)

// onPostgres reports whether the store's engine is PostgreSQL.
func (s *Store) onPostgres() bool {
	_, ok := s.db.(*postgres.DB)
	return ok
}

// submitLabelPostgres is submitLabel in fewer round trips, for
// PostgreSQL, where every one is made holding the writers' lock: the
// assignment's and the item's status in one query, and the label, the
// assignment marked submitted, the draft removed, the item marked labeling
// and the count of the item's other open assignments in one statement
// (data-modifying WITH queries; the count reads the snapshot before them,
// in which only this reviewer's assignment changes, so it is the count of
// open assignments after). Every write to the item runs one at a time
// (itemWrite: its lock is taken before the first statement, so each
// statement's snapshot holds every write to the item before it), so the
// settle decision is the same as submitLabel's.
func (s *Store) submitLabelPostgres(ctx context.Context, tx Queryer, l review.Label) (Settlement, error) {
	var st, itemStatus sql.NullString
	if err := tx.QueryRowContext(ctx, `SELECT (SELECT status FROM assignments WHERE item_id = ? AND reviewer = ?
			AND batch NOT IN (SELECT name FROM batches WHERE state = 'writing')),
		(SELECT status FROM items WHERE id = ?)`, l.Item, l.Reviewer, l.Item).Scan(&st, &itemStatus); err != nil {
		return Settlement{}, err
	}
	if !st.Valid {
		return Settlement{}, fmt.Errorf("%s is not assigned item %s: %w", l.Reviewer, l.Item, ErrNotFound)
	}
	if st.String == AssignSubmitted {
		return Settlement{}, fmt.Errorf("%s already submitted a label for %s: %w", l.Reviewer, l.Item, ErrConflict)
	}
	if !itemStatus.Valid {
		return Settlement{}, sql.ErrNoRows
	}
	if itemStatus.String == review.GoldAdjudicated {
		return Settlement{}, fmt.Errorf("item %s is already settled: %w", l.Item, ErrConflict)
	}
	row, err := s.labelRow(l)
	if err != nil {
		return Settlement{}, err
	}
	now := s.now()
	args := append(row, now, l.Item, l.Reviewer, l.Item, l.Reviewer, now, l.Item, l.Item, l.Reviewer)
	var open int
	if err := tx.QueryRowContext(ctx, `WITH label AS (`+insertLabel+labelValues+`),
		assignment AS (UPDATE assignments SET status = 'submitted', skip_reason = '', updated_at = ? WHERE item_id = ? AND reviewer = ?),
		draft AS (DELETE FROM drafts WHERE item_id = ? AND reviewer = ?),
		item AS (UPDATE items SET status = 'labeling', updated_at = ? WHERE id = ? AND status IN ('new', 'sampled'))
		SELECT count(*) FROM assignments WHERE item_id = ? AND reviewer <> ? AND status IN ('pending', 'draft')`, args...).Scan(&open); err != nil {
		return Settlement{}, classify(err)
	}
	if open > 0 {
		return Settlement{}, nil
	}
	labels, agreed, err := itemLabelsAndSetting(ctx, tx, l.Item, SettingReviewAgreed)
	if err != nil {
		return Settlement{}, err
	}
	return s.settleLabels(ctx, tx, l.Item, labels, func() (bool, error) { return agreed == "true", nil })
}

// itemLabelsAndSetting is itemLabels and setting in one query.
func itemLabelsAndSetting(ctx context.Context, q Queryer, itemID, key string) ([]review.Label, string, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+labelColumns+`, coalesce((SELECT value FROM settings WHERE key = ?), '')
		FROM labels l WHERE item_id = ? ORDER BY reviewer`, key, itemID)
	if err != nil {
		return nil, "", err
	}
	defer rows.Close()
	var out []review.Label
	var value string
	for rows.Next() {
		l, err := scanLabel(alsoScan{rows, &value})
		if err != nil {
			return nil, "", err
		}
		out = append(out, l)
	}
	return out, value, rows.Err()
}

// alsoScan scans one more column, after those its caller asks for.
type alsoScan struct {
	r    scanner
	last any
}

func (a alsoScan) Scan(dest ...any) error { return a.r.Scan(append(dest, a.last)...) }

// putSettlementPostgres writes a settled comparison's outcome in one
// statement: the gold answer and the item agreed, or the agreed gold
// answer removed, the dispute and the item disputed (what putGold and
// putDispute do in two and three).
func putSettlementPostgres(ctx context.Context, tx Queryer, itemID string, out review.Outcome, now string) error {
	if out.Gold == nil {
		args, err := disputeArgs(itemID, out.Dispute, now)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `WITH agreed AS (DELETE FROM gold WHERE item_id = ? AND status = 'agreed'),
			dispute AS (`+upsertDispute+`)
			UPDATE items SET status = 'disputed', updated_at = ? WHERE id = ?`, append(append([]any{itemID}, args...), now, itemID)...)
		return err
	}
	args, err := goldArgs(*out.Gold, now)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `WITH answer AS (`+upsertGold+`)
		UPDATE items SET status = 'agreed', updated_at = ? WHERE id = ?`, append(args, now, itemID)...)
	return err
}
