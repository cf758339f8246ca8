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

// A reviewer's writes on PostgreSQL go in rounds of pipelined statements
// (pipedTx): every round trip wakes a server backend, which on a busy
// machine waits its turn for a core, so their number bounds a submit's
// latency under load. A submit is two round trips: the first begins the
// transaction (its locks: the item's writes run one at a time, so each
// statement sees every earlier write to the item), checks the assignment
// and the item, writes the label, the assignment submitted, the draft
// removed and the item labeling, reads the item's labels when none of
// its assignments is open any more, and writes the audit entry while the
// SSH key is still the reviewer's; the second writes what review.Settle
// decided (when it settled) and commits. A skip is the same; a draft's
// autosave is one round trip. The checks are in the statements that
// write (which write nothing when a check fails, and the transaction then
// rolls back), so the rules are those of the SQLite statements, in fewer
// messages.

// submitLabelPiped is SubmitLabel on PostgreSQL.
func (s *Store) submitLabelPiped(ctx context.Context, l review.Label) (Settlement, error) {
	row, err := s.labelRow(l)
	if err != nil {
		return Settlement{}, err
	}
	var out Settlement
	err = s.withPiped(ctx, func(p *pipedTx) error {
		out = Settlement{}
		now := s.now()
		var assigned, itemStatus sql.NullString
		var open int
		closed := itemClosed(l.Item)
		if err := p.Round(postgres.Stmt{Query: pgSubmit, Args: append(row, now, review.GoldAdjudicated),
			Rows: func(r postgres.Row) error { return r.Scan(&assigned, &itemStatus, &open) }}, closed.stmt); err != nil {
			return err
		}
		switch {
		case !assigned.Valid:
			return fmt.Errorf("%s is not assigned item %s: %w", l.Reviewer, l.Item, ErrNotFound)
		case assigned.String == AssignSubmitted:
			return fmt.Errorf("%s already submitted a label for %s: %w", l.Reviewer, l.Item, ErrConflict)
		case !itemStatus.Valid:
			return sql.ErrNoRows
		case itemStatus.String == review.GoldAdjudicated:
			return fmt.Errorf("item %s is already settled: %w", l.Item, ErrConflict)
		}
		if open > 0 {
			return p.Commit()
		}
		var err error
		out, err = s.commitSettled(p, l.Item, closed, now)
		return err
	})
	if err != nil {
		return Settlement{}, err
	}
	return out, nil
}

// pgSubmit is submitLabel's statements in one: the assignment's and the
// item's status, and the count of the item's other open assignments (in
// the snapshot before the statement's writes, in which only this
// reviewer's assignment changes: the count of open ones after); and, when
// the assignment is not submitted and the item not adjudicated, the label
// written ($1–$9, labelRow's), the assignment submitted, the draft
// removed and the item labeling (at $10; $11 is review.GoldAdjudicated).
const pgSubmit = `WITH cur AS (SELECT (SELECT status FROM assignments WHERE item_id = $1 AND reviewer = $2
		AND batch NOT IN (SELECT name FROM batches WHERE state = 'writing')) AS assigned,
	(SELECT status FROM items WHERE id = $1) AS item),
ok AS (SELECT 1 FROM cur WHERE assigned <> 'submitted' AND item <> $11),
label AS (INSERT INTO labels(item_id, reviewer, decision, calls, rationale, guide_version, seconds, saw_observed, submitted_at)
	SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9 FROM ok),
assignment AS (UPDATE assignments SET status = 'submitted', skip_reason = '', updated_at = $10
	WHERE item_id = $1 AND reviewer = $2 AND EXISTS (SELECT 1 FROM ok)),
draft AS (DELETE FROM drafts WHERE item_id = $1 AND reviewer = $2 AND EXISTS (SELECT 1 FROM ok)),
item AS (UPDATE items SET status = 'labeling', updated_at = $10 WHERE id = $1 AND status IN ('new', 'sampled') AND EXISTS (SELECT 1 FROM ok))
SELECT assigned, item, (SELECT count(*) FROM assignments WHERE item_id = $1 AND reviewer <> $2 AND status IN ('pending', 'draft')) FROM cur`

// skipItemPiped is SkipItem on PostgreSQL.
func (s *Store) skipItemPiped(ctx context.Context, itemID, reviewer, reason string) error {
	return s.withPiped(ctx, func(p *pipedTx) error {
		now := s.now()
		var assigned sql.NullString
		var open int
		closed := itemClosed(itemID)
		if err := p.Round(postgres.Stmt{Query: pgSkip, Args: []any{itemID, reviewer, reason, now},
			Rows: func(r postgres.Row) error { return r.Scan(&assigned, &open) }}, closed.stmt); err != nil {
			return err
		}
		switch {
		case !assigned.Valid:
			return fmt.Errorf("%s is not assigned item %s: %w", reviewer, itemID, ErrNotFound)
		case assigned.String == AssignSubmitted:
			return fmt.Errorf("item %s is already submitted by %s: %w", itemID, reviewer, ErrConflict)
		}
		if open > 0 {
			return p.Commit()
		}
		_, err := s.commitSettled(p, itemID, closed, now)
		return err
	})
}

// pgSkip is SkipItem's statements in one, as pgSubmit: the assignment's
// status and the count of the item's other open assignments; and, when
// the assignment is not submitted, the assignment skipped (with reason
// $3, at $4) and the draft removed.
const pgSkip = `WITH cur AS (SELECT (SELECT status FROM assignments WHERE item_id = $1 AND reviewer = $2
		AND batch NOT IN (SELECT name FROM batches WHERE state = 'writing')) AS assigned),
ok AS (SELECT 1 FROM cur WHERE assigned <> 'submitted'),
skip AS (UPDATE assignments SET status = 'skipped', skip_reason = $3, updated_at = $4
	WHERE item_id = $1 AND reviewer = $2 AND EXISTS (SELECT 1 FROM ok)),
draft AS (DELETE FROM drafts WHERE item_id = $1 AND reviewer = $2 AND EXISTS (SELECT 1 FROM ok))
SELECT assigned, (SELECT count(*) FROM assignments WHERE item_id = $1 AND reviewer <> $2 AND status IN ('pending', 'draft')) FROM cur`

// closedLabels reads, after the statement that closed a reviewer's
// assignment in the same round, an item's labels (by reviewer) and the
// review_agreed setting: none when an assignment of the item is still
// open.
type closedLabels struct {
	stmt   postgres.Stmt
	labels []review.Label
	agreed string
}

func itemClosed(itemID string) *closedLabels {
	c := &closedLabels{}
	c.stmt = postgres.Stmt{Query: `SELECT ` + labelColumns + `, coalesce((SELECT value FROM settings WHERE key = $2), '')
		FROM labels l WHERE item_id = $1 AND NOT EXISTS (SELECT 1 FROM assignments WHERE item_id = $1 AND status IN ('pending', 'draft'))
		ORDER BY reviewer`, Args: []any{itemID, SettingReviewAgreed},
		Rows: func(r postgres.Row) error {
			l, err := scanLabel(alsoScan{r, &c.agreed})
			c.labels = append(c.labels, l)
			return err
		}}
	return c
}

// commitSettled applies review.Settle to an item none of whose
// assignments is open (settleOutcome), and writes the outcome in the
// round that commits.
func (s *Store) commitSettled(p *pipedTx, itemID string, c *closedLabels, now string) (Settlement, error) {
	out, err := settleOutcome(c.labels, func() (bool, error) { return c.agreed == "true", nil })
	if err != nil || !out.Settled {
		return Settlement{}, p.Commit()
	}
	q, args, err := settlementPostgres(itemID, out, now)
	if err != nil {
		return Settlement{}, err
	}
	return Settlement{Settled: true, Comparison: out.Comparison}, p.Commit(postgres.Stmt{Query: q, Args: args})
}

// saveDraftPiped is SaveDraft on PostgreSQL: one round trip, the
// transaction committed with it (or two with an audit entry, which is
// written only while the SSH key is still the actor's). A draft of an
// assignment that is not pending or in draft writes nothing.
func (s *Store) saveDraftPiped(ctx context.Context, itemID, reviewer string, body []byte, seconds int) error {
	return s.withPiped(ctx, func(p *pipedTx) error {
		var assigned sql.NullString
		if err := p.Commit(postgres.Stmt{Query: pgDraft, Args: []any{itemID, reviewer, string(body), seconds, s.now()},
			Rows: func(r postgres.Row) error { return r.Scan(&assigned) }}); err != nil {
			return err
		}
		switch {
		case !assigned.Valid:
			return fmt.Errorf("%s is not assigned item %s: %w", reviewer, itemID, ErrNotFound)
		case assigned.String != AssignPending && assigned.String != AssignDraft:
			return fmt.Errorf("item %s is already %s by %s: %w", itemID, assigned.String, reviewer, ErrConflict)
		}
		return nil
	})
}

// pgDraft is putDraft's statements in one, written only while the
// assignment is pending or in draft; it returns the assignment's status.
const pgDraft = `WITH cur AS (SELECT (SELECT status FROM assignments WHERE item_id = $1 AND reviewer = $2
		AND batch NOT IN (SELECT name FROM batches WHERE state = 'writing')) AS assigned),
ok AS (SELECT 1 FROM cur WHERE assigned IN ('pending', 'draft')),
draft AS (INSERT INTO drafts(item_id, reviewer, body, seconds, updated_at) SELECT $1, $2, $3, $4, $5 FROM ok
	ON CONFLICT (item_id, reviewer) DO UPDATE SET body = excluded.body, seconds = excluded.seconds, updated_at = excluded.updated_at),
mark AS (UPDATE assignments SET status = 'draft', updated_at = $5 WHERE item_id = $1 AND reviewer = $2 AND EXISTS (SELECT 1 FROM ok))
SELECT assigned FROM cur`

// alsoScan scans one more column, after those its caller asks for.
type alsoScan struct {
	r    scanner
	last any
}

func (a alsoScan) Scan(dest ...any) error { return a.r.Scan(append(dest, a.last)...) }

// settlementPostgres is the statement that writes a settled comparison's
// outcome, and its arguments: the gold answer and the item agreed, or the
// agreed gold answer removed, the dispute and the item disputed (what
// putGold and putDispute do in two and three).
func settlementPostgres(itemID string, out review.Outcome, now string) (string, []any, error) {
	if out.Gold == nil {
		args, err := disputeArgs(itemID, out.Dispute, now)
		if err != nil {
			return "", nil, err
		}
		return `WITH agreed AS (DELETE FROM gold WHERE item_id = ? AND status = 'agreed'),
			dispute AS (` + upsertDispute + `)
			UPDATE items SET status = 'disputed', updated_at = ? WHERE id = ?`, append(append([]any{itemID}, args...), now, itemID), nil
	}
	args, err := goldArgs(*out.Gold, now)
	if err != nil {
		return "", nil, err
	}
	return `WITH answer AS (` + upsertGold + `)
		UPDATE items SET status = 'agreed', updated_at = ? WHERE id = ?`, append(args, now, itemID), nil
}

// putSettlementPostgres writes a settled comparison's outcome in one
// statement (settlementPostgres).
func putSettlementPostgres(ctx context.Context, tx Queryer, itemID string, out review.Outcome, now string) error {
	q, args, err := settlementPostgres(itemID, out, now)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, q, args...)
	return err
}
