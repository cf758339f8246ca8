package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/store/postgres"
)

// Assignment statuses.
const (
	AssignPending   = "pending"
	AssignDraft     = "draft"
	AssignSubmitted = "submitted"
	AssignSkipped   = "skipped"
)

// Assignment is one reviewer's duty to label one item.
type Assignment struct {
	ItemID     string `json:"item"`
	Reviewer   string `json:"reviewer"`
	Batch      string `json:"batch"`
	Position   int    `json:"position"`
	Status     string `json:"status"`
	SkipReason string `json:"skip_reason,omitempty"`
	UpdatedAt  string `json:"updated_at"`
}

// assignmentColumns are the columns scanAssignment reads.
const assignmentColumns = `item_id, reviewer, batch, position, status, skip_reason, updated_at`

// scanAssignment reads a row selected as assignmentColumns.
func scanAssignment(r scanner) (Assignment, error) {
	var a Assignment
	err := r.Scan(&a.ItemID, &a.Reviewer, &a.Batch, &a.Position, &a.Status, &a.SkipReason, &a.UpdatedAt)
	return a, err
}

// Queue lists a reviewer's open assignments (drafts first, then in order),
// optionally in one batch only.
func (s *Store) Queue(ctx context.Context, reviewer, batch string) ([]Assignment, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+assignmentColumns+`
		FROM assignments WHERE reviewer = ? AND status IN ('pending', 'draft') AND (? = '' OR batch = ?)
		AND batch NOT IN (SELECT name FROM batches WHERE state = 'writing')
		ORDER BY status = 'draft' DESC, batch, position`, reviewer, batch, batch)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Assignment
	for rows.Next() {
		a, err := scanAssignment(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Progress counts a reviewer's assignments by status, optionally in one batch.
// The label screen counts on every load, so while no batch is being written
// (the usual case) the counts come from an index alone: (reviewer, status)
// for the whole queue, (batch, reviewer, status) for one batch; a queue of
// 100k items costs 22 ms that way, 62 ms through the reviewer index and the
// rows. One statement, so one snapshot: its third part counts the other
// case, leaving out the batches being written.
func (s *Store) Progress(ctx context.Context, reviewer, batch string) (map[string]int, error) {
	if s.pg {
		// One round trip, with ctx's UserCheck.
		out := map[string]int{}
		err := s.readChecked(ctx, postgres.Stmt{Query: progressQuery, Args: []any{reviewer, batch}, Rows: func(r postgres.Row) error {
			var k string
			var n int
			err := r.Scan(&k, &n)
			out[k] = n
			return err
		}})
		if err != nil {
			return nil, err
		}
		return out, nil
	}
	return queryCounts(ctx, s.r, progressQuery, reviewer, batch)
}

// progressQuery is Progress's query.
const progressQuery = `SELECT status, count(*) FROM assignments
		WHERE reviewer = ?1 AND ?2 = '' AND NOT EXISTS (SELECT 1 FROM batches WHERE state = 'writing') GROUP BY status
		UNION ALL
		SELECT status, count(*) FROM assignments
		WHERE batch = ?2 AND reviewer = ?1 AND NOT EXISTS (SELECT 1 FROM batches WHERE state = 'writing') GROUP BY status
		UNION ALL
		SELECT status, count(*) FROM assignments
		WHERE reviewer = ?1 AND (?2 = '' OR batch = ?2) AND EXISTS (SELECT 1 FROM batches WHERE state = 'writing')
		AND batch NOT IN (SELECT name FROM batches WHERE state = 'writing') GROUP BY status`

// assignmentStatus loads the status of (item, reviewer); ErrNotFound when the
// reviewer is not assigned the item, or its batch is still being written (a
// label there would pin a batch that a failed sample must remove).
func assignmentStatus(ctx context.Context, q Queryer, itemID, reviewer string) (string, error) {
	var st string
	err := q.QueryRowContext(ctx, `SELECT status FROM assignments WHERE item_id = ? AND reviewer = ?
		AND batch NOT IN (SELECT name FROM batches WHERE state = 'writing')`, itemID, reviewer).Scan(&st)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("%s is not assigned item %s: %w", reviewer, itemID, ErrNotFound)
	}
	return st, err
}

// SaveDraft stores the reviewer's unsubmitted work on an item (body is the
// TUI's own JSON). It refuses to touch a submitted or skipped assignment.
func (s *Store) SaveDraft(ctx context.Context, itemID, reviewer string, body []byte, seconds int) error {
	ctx = itemWrite(ctx, itemID)
	if s.onPostgres() {
		return s.saveDraftPiped(ctx, itemID, reviewer, body, seconds)
	}
	return s.WithTx(ctx, func(tx *Tx) error {
		st, err := assignmentStatus(ctx, tx, itemID, reviewer)
		if err != nil {
			return err
		}
		if st != AssignPending && st != AssignDraft {
			return fmt.Errorf("item %s is already %s by %s: %w", itemID, st, reviewer, ErrConflict)
		}
		return putDraft(ctx, tx, itemID, reviewer, body, seconds, s.now())
	})
}

// putDraft stores (or replaces) a reviewer's draft of an item and marks the
// assignment draft.
func putDraft(ctx context.Context, tx *Tx, itemID, reviewer string, body []byte, seconds int, now string) error {
	if _, err := tx.ExecContext(ctx, upsertDraft, itemID, reviewer, string(body), seconds, now); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, markDraft, now, itemID, reviewer)
	return err
}

// upsertDraft and markDraft are putDraft's two statements.
const (
	upsertDraft = `INSERT INTO drafts(item_id, reviewer, body, seconds, updated_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT(item_id, reviewer) DO UPDATE SET body = excluded.body, seconds = excluded.seconds, updated_at = excluded.updated_at`
	markDraft = `UPDATE assignments SET status = 'draft', updated_at = ? WHERE item_id = ? AND reviewer = ?`
)

// Draft loads a saved draft; ErrNotFound when there is none.
func (s *Store) Draft(ctx context.Context, itemID, reviewer string) (body []byte, seconds int, err error) {
	var b string
	err = s.r.QueryRowContext(ctx, draftQuery, itemID, reviewer).Scan(&b, &seconds)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, fmt.Errorf("draft of %s by %s: %w", itemID, reviewer, ErrNotFound)
	}
	return []byte(b), seconds, err
}

// draftQuery selects a reviewer's draft of an item: its body and seconds.
const draftQuery = draftSelect + `? AND reviewer = ?`

// draftSelect is draftQuery up to the item it selects.
const draftSelect = `SELECT body, seconds FROM drafts WHERE item_id = `

// Settlement says what a submission did to its item.
type Settlement struct {
	// Settled is true when this was the item's last outstanding label.
	Settled    bool
	Comparison review.Comparison
}

// SubmitLabel records a label in one transaction: the label, the assignment
// marked submitted, the draft removed and, when it was the item's last
// outstanding label, the item compared and settled as agreed (with gold) or
// disputed.
func (s *Store) SubmitLabel(ctx context.Context, l review.Label) (Settlement, error) {
	ctx = itemWrite(ctx, l.Item)
	if s.onPostgres() {
		return s.submitLabelPiped(ctx, l)
	}
	var out Settlement
	err := s.WithTx(ctx, func(tx *Tx) error {
		var err error
		out, err = s.submitLabel(ctx, tx, l)
		return err
	})
	if err != nil {
		// fn may have compared the label before the transaction failed
		// (its audit entry, the commit, or the group it shared): nothing
		// was settled.
		return Settlement{}, err
	}
	return out, nil
}

func (s *Store) submitLabel(ctx context.Context, tx Queryer, l review.Label) (Settlement, error) {
	st, err := assignmentStatus(ctx, tx, l.Item, l.Reviewer)
	if err != nil {
		return Settlement{}, err
	}
	if st == AssignSubmitted {
		return Settlement{}, fmt.Errorf("%s already submitted a label for %s: %w", l.Reviewer, l.Item, ErrConflict)
	}
	var itemStatus string
	if err := tx.QueryRowContext(ctx, `SELECT status FROM items WHERE id = ?`, l.Item).Scan(&itemStatus); err != nil {
		return Settlement{}, err
	}
	if itemStatus == review.GoldAdjudicated {
		return Settlement{}, fmt.Errorf("item %s is already settled: %w", l.Item, ErrConflict)
	}
	row, err := s.labelRow(l)
	if err != nil {
		return Settlement{}, err
	}
	if _, err := tx.ExecContext(ctx, insertLabel+labelValues, row...); err != nil {
		return Settlement{}, classify(err)
	}
	now := s.now()
	if _, err := tx.ExecContext(ctx, `UPDATE assignments SET status = 'submitted', skip_reason = '', updated_at = ? WHERE item_id = ? AND reviewer = ?`,
		now, l.Item, l.Reviewer); err != nil {
		return Settlement{}, err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM drafts WHERE item_id = ? AND reviewer = ?`, l.Item, l.Reviewer); err != nil {
		return Settlement{}, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE items SET status = 'labeling', updated_at = ? WHERE id = ? AND status IN ('new', 'sampled')`, now, l.Item); err != nil {
		return Settlement{}, err
	}
	return s.settle(ctx, tx, l.Item)
}

// insertLabel and labelValues insert one labels row given as labelRow.
const (
	insertLabel = `INSERT INTO labels(item_id, reviewer, decision, calls, rationale, guide_version, seconds, saw_observed, submitted_at) VALUES `
	labelValues = "(?, ?, ?, ?, ?, ?, ?, ?, ?)"
)

// labelRow is the labels row of l (submitted now if it has no time).
func (s *Store) labelRow(l review.Label) ([]any, error) {
	if l.SubmittedAt.IsZero() {
		l.SubmittedAt = s.Now()
	}
	calls := l.Calls
	if calls == nil {
		calls = []review.LabelCall{}
	}
	callsJSON, err := json.Marshal(calls)
	if err != nil {
		return nil, err
	}
	return []any{l.Item, l.Reviewer, l.Decision, string(callsJSON), l.Rationale, l.GuideVersion,
		l.Seconds, boolInt(l.SawObserved), l.SubmittedAt.UTC().Format(time.RFC3339)}, nil
}

// settle applies review.Settle to an item, in the transaction that
// changed its labels: agreed gold or a dispute once none of its
// assignments is open.
func (s *Store) settle(ctx context.Context, tx Queryer, itemID string) (Settlement, error) {
	var open int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM assignments WHERE item_id = ? AND status IN ('pending', 'draft')`, itemID).Scan(&open); err != nil {
		return Settlement{}, err
	}
	if open > 0 {
		return Settlement{}, nil
	}
	labels, err := itemLabels(ctx, tx, itemID)
	if err != nil {
		return Settlement{}, err
	}
	return s.settleLabels(ctx, tx, itemID, labels, func() (bool, error) { return reviewAgreed(ctx, tx) })
}

// settleLabels applies review.Settle to an item none of whose assignments
// is open, given its labels (by reviewer), and writes the outcome; held
// reads whether agreed items wait for a lead (the review_agreed setting).
func (s *Store) settleLabels(ctx context.Context, tx Queryer, itemID string, labels []review.Label, held func() (bool, error)) (Settlement, error) {
	out, err := settleOutcome(labels, held)
	if err != nil || !out.Settled {
		return Settlement{}, err
	}
	now := s.now()
	if s.onPostgres() {
		return Settlement{Settled: true, Comparison: out.Comparison}, putSettlementPostgres(ctx, tx, itemID, out, now)
	}
	if out.Gold == nil {
		return Settlement{Settled: true, Comparison: out.Comparison}, putDispute(ctx, tx, itemID, out.Dispute, now)
	}
	if err := putGold(ctx, tx, *out.Gold, now); err != nil {
		return Settlement{}, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE items SET status = 'agreed', updated_at = ? WHERE id = ?`, now, itemID); err != nil {
		return Settlement{}, err
	}
	return Settlement{Settled: true, Comparison: out.Comparison}, nil
}

// settleOutcome is review.Settle of an item none of whose assignments is
// open, given its labels (by reviewer); held reads whether agreed items
// wait for a lead (the review_agreed setting), asked only of two labels
// or more.
func settleOutcome(labels []review.Label, held func() (bool, error)) (review.Outcome, error) {
	hold := false
	if len(labels) >= 2 {
		var err error
		if hold, err = held(); err != nil {
			return review.Outcome{}, err
		}
	}
	return review.Settle(0, labels, hold), nil
}

// unsettle undoes an item's comparison (its gold answer and dispute go)
// and sets its status: what taking a label back leaves.
func unsettle(ctx context.Context, tx Queryer, itemID, status, now string) error {
	for _, q := range []string{`DELETE FROM gold WHERE item_id = ?`, `DELETE FROM disputes WHERE item_id = ?`} {
		if _, err := tx.ExecContext(ctx, q, itemID); err != nil {
			return err
		}
	}
	_, err := tx.ExecContext(ctx, `UPDATE items SET status = ?, updated_at = ? WHERE id = ?`, status, now, itemID)
	return err
}

// putDispute records why an item is disputed (kinds, and the per-pair
// detail as {"pairs": [...]}) and marks the item disputed. An agreed gold
// answer from an earlier comparison (a label that came in after it, from a
// released assignment or a skip) goes: a disputed item is not gold.
func putDispute(ctx context.Context, tx Queryer, itemID string, cmp review.Comparison, now string) error {
	args, err := disputeArgs(itemID, cmp, now)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM gold WHERE item_id = ? AND status = 'agreed'`, itemID); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, upsertDispute, args...); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE items SET status = 'disputed', updated_at = ? WHERE id = ?`, now, itemID)
	return err
}

// upsertDispute writes an item's dispute, given disputeArgs.
const upsertDispute = `INSERT INTO disputes(item_id, kinds, detail, created_at) VALUES ` + disputeValues + `
		ON CONFLICT(item_id) DO UPDATE SET kinds = excluded.kinds, detail = excluded.detail, created_at = excluded.created_at`

// disputeArgs are upsertDispute's arguments.
func disputeArgs(itemID string, cmp review.Comparison, now string) ([]any, error) {
	kinds, err := json.Marshal(nonNil(cmp.Kinds))
	if err != nil {
		return nil, err
	}
	detail, err := json.Marshal(disputeDetail{Pairs: nonNil(cmp.Pairs)})
	if err != nil {
		return nil, err
	}
	return []any{itemID, string(kinds), string(detail), now}, nil
}

// disputeDetail is the JSON of disputes.detail.
type disputeDetail struct {
	Pairs []review.PairDiff `json:"pairs"`
}

// putGold writes (or replaces) an item's gold answer.
func putGold(ctx context.Context, q Queryer, g review.Gold, now string) error {
	args, err := goldArgs(g, now)
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, upsertGold, args...)
	return err
}

// upsertGold writes (or replaces) an item's gold answer, given goldArgs.
const upsertGold = `INSERT INTO gold(item_id, status, decision, calls, acceptable, rationale, reviewers, adjudicator, guide_version, reason, updated_at)
		VALUES ` + goldValues + `
		ON CONFLICT(item_id) DO UPDATE SET status = excluded.status, decision = excluded.decision, calls = excluded.calls,
			acceptable = excluded.acceptable, rationale = excluded.rationale, reviewers = excluded.reviewers,
			adjudicator = excluded.adjudicator, guide_version = excluded.guide_version, reason = excluded.reason,
			updated_at = excluded.updated_at`

// goldValues and disputeValues are upsertGold's and upsertDispute's rows.
const (
	goldValues    = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
	disputeValues = "(?, ?, ?, ?)"
)

// goldArgs are upsertGold's arguments.
func goldArgs(g review.Gold, now string) ([]any, error) {
	calls, err := json.Marshal(nonNil(g.Calls))
	if err != nil {
		return nil, err
	}
	acceptable, err := json.Marshal(nonNil(g.Acceptable))
	if err != nil {
		return nil, err
	}
	reviewers, err := json.Marshal(nonNil(g.Reviewers))
	if err != nil {
		return nil, err
	}
	return []any{g.Item, g.Status, g.Decision, string(calls), string(acceptable), g.Rationale, string(reviewers), g.Adjudicator,
		g.GuideVersion, g.Reason, now}, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// itemLabels loads every submitted label of an item, by reviewer.
func itemLabels(ctx context.Context, q Queryer, itemID string) ([]review.Label, error) {
	rows, err := q.QueryContext(ctx, `SELECT `+labelColumns+` FROM labels l WHERE item_id = ? ORDER BY reviewer`, itemID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []review.Label
	for rows.Next() {
		l, err := scanLabel(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

type scanner interface{ Scan(dest ...any) error }

// labelColumns are the columns scanLabel reads, from labels aliased l.
const labelColumns = `l.item_id, l.reviewer, l.decision, l.calls, l.rationale, l.guide_version, l.seconds, l.saw_observed, l.submitted_at`

// scanLabel reads a row selected as labelColumns.
func scanLabel(r scanner) (review.Label, error) {
	var l review.Label
	var calls, submitted string
	var saw int
	if err := r.Scan(&l.Item, &l.Reviewer, &l.Decision, &calls, &l.Rationale, &l.GuideVersion, &l.Seconds, &saw, &submitted); err != nil {
		return l, err
	}
	if err := json.Unmarshal([]byte(calls), &l.Calls); err != nil {
		return l, fmt.Errorf("label %s/%s: calls: %w", l.Item, l.Reviewer, err)
	}
	l.SawObserved = saw == 1
	t, err := time.Parse(time.RFC3339, submitted)
	if err != nil {
		return l, fmt.Errorf("label %s/%s: submitted_at: %w", l.Item, l.Reviewer, err)
	}
	l.SubmittedAt = t
	return l, nil
}

// Label loads one reviewer's submitted label for an item.
func (s *Store) Label(ctx context.Context, itemID, reviewer string) (review.Label, error) {
	l, err := loadLabel(ctx, s.r, itemID, reviewer)
	if errors.Is(err, sql.ErrNoRows) {
		return l, fmt.Errorf("label of %s by %s: %w", itemID, reviewer, ErrNotFound)
	}
	return l, err
}

// loadLabel reads one reviewer's submitted label for an item
// (sql.ErrNoRows when there is none).
func loadLabel(ctx context.Context, q Queryer, itemID, reviewer string) (review.Label, error) {
	return scanLabel(q.QueryRowContext(ctx, `SELECT `+labelColumns+` FROM labels l WHERE item_id = ? AND reviewer = ?`, itemID, reviewer))
}

// SkipItem marks an assignment skipped with the reviewer's reason.
func (s *Store) SkipItem(ctx context.Context, itemID, reviewer, reason string) error {
	ctx = itemWrite(ctx, itemID)
	if reason == "" {
		return errors.New("a skip needs a reason")
	}
	if s.onPostgres() {
		return s.skipItemPiped(ctx, itemID, reviewer, reason)
	}
	return s.WithTx(ctx, func(tx *Tx) error {
		st, err := assignmentStatus(ctx, tx, itemID, reviewer)
		if err != nil {
			return err
		}
		if st == AssignSubmitted {
			return fmt.Errorf("item %s is already submitted by %s: %w", itemID, reviewer, ErrConflict)
		}
		now := s.now()
		if _, err := tx.ExecContext(ctx, `UPDATE assignments SET status = 'skipped', skip_reason = ?, updated_at = ? WHERE item_id = ? AND reviewer = ?`,
			reason, now, itemID, reviewer); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM drafts WHERE item_id = ? AND reviewer = ?`, itemID, reviewer); err != nil {
			return err
		}
		_, err = s.settle(ctx, tx, itemID)
		return err
	})
}

// LastSubmitted is the item the reviewer most recently submitted (in one
// batch, if given); ErrNotFound when there is none.
func (s *Store) LastSubmitted(ctx context.Context, reviewer, batch string) (string, error) {
	var id string
	err := s.r.QueryRowContext(ctx, `SELECT l.item_id FROM labels l JOIN assignments a ON a.item_id = l.item_id AND a.reviewer = l.reviewer
		WHERE l.reviewer = ? AND (? = '' OR a.batch = ?) ORDER BY a.updated_at DESC, l.submitted_at DESC, l.rowid DESC LIMIT 1`, reviewer, batch, batch).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("no submitted label by %s: %w", reviewer, ErrNotFound)
	}
	return id, err
}

// Reopen takes back a reviewer's submitted label so it can be changed: in one
// transaction the label becomes a draft (toDraft renders it in the TUI's
// draft format), the assignment is open again and any agreement or dispute
// computed from it is undone. Items that every assigned reviewer has
// submitted (compared), that are adjudicated or in an exported dataset
// version cannot be reopened (ErrConflict): from then on only a lead's
// send-back reopens them.
func (s *Store) Reopen(ctx context.Context, itemID, reviewer string, toDraft func(review.Label) ([]byte, error)) (review.Label, error) {
	ctx = itemWrite(ctx, itemID)
	var l review.Label
	err := s.WithTx(ctx, func(tx *Tx) error {
		var err error
		if l, err = loadLabel(ctx, tx, itemID, reviewer); errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%s has no submitted label for %s: %w", reviewer, itemID, ErrNotFound)
		} else if err != nil {
			return err
		}
		var status string
		if err := tx.QueryRowContext(ctx, `SELECT status FROM items WHERE id = ?`, itemID).Scan(&status); err != nil {
			return err
		}
		// Once every assigned reviewer has submitted, the labels have been
		// compared (agreed, or disputed: a dispute, or an agreement held for
		// review). A reviewer taking theirs back now could turn a
		// disagreement they learned of into agreement ("peek, reopen,
		// match"): only the lead's send-back reopens it.
		// Adjudicated answers the same as agreed and disputed: a reviewer
		// must not learn from the refusal whether the others agreed.
		kept, err := keptBySendBack(ctx, tx, itemID, reviewer)
		if err != nil {
			return err
		}
		// A label the lead's last send-back kept (it went to the others
		// only) was compared too, though the item is labeling again.
		if status == "agreed" || status == "disputed" || status == review.GoldAdjudicated || kept {
			return fmt.Errorf("item %s has been compared (every assigned reviewer has submitted) and cannot be reopened; a lead can send it back: %w", itemID, ErrConflict)
		}
		var exported int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM dataset_items di JOIN datasets d ON d.name = di.name AND d.version = di.version
			WHERE di.item_id = ? AND d.state = 'ready'`, itemID).Scan(&exported); err != nil {
			return err
		}
		if exported > 0 {
			return fmt.Errorf("item %s is in an exported dataset and cannot be reopened: %w", itemID, ErrConflict)
		}
		body, err := toDraft(l)
		if err != nil {
			return err
		}
		now := s.now()
		if _, err := tx.ExecContext(ctx, `DELETE FROM labels WHERE item_id = ? AND reviewer = ?`, itemID, reviewer); err != nil {
			return err
		}
		if err := unsettle(ctx, tx, itemID, "labeling", now); err != nil {
			return err
		}
		return putDraft(ctx, tx, itemID, reviewer, body, l.Seconds, now)
	})
	return l, err
}

// LabelsOfItems loads the submitted labels of the given items (nil: of
// every item), grouped per item (in item id order, each item's labels by
// reviewer), for agreement statistics over a dataset: only Item, Reviewer,
// Decision and Calls are filled. Items without labels are left out. It
// reads the labels table in one plain scan, as the lead's status does:
// ordering by the primary key costs a table lookup per label in the
// pure-Go SQLite, four times the work.
func (s *Store) LabelsOfItems(ctx context.Context, itemIDs []string) ([][]review.Label, error) {
	var want map[string]bool
	if itemIDs != nil {
		want = make(map[string]bool, len(itemIDs))
		for _, id := range itemIDs {
			want[id] = true
		}
	}
	var g labelGrouper
	if want != nil {
		g.expect(len(itemIDs))
	} else if err := s.expectLabelItems(ctx, &g); err != nil {
		return nil, err
	}
	var row sql.RawBytes
	dest := []any{&row} // built once: Scan(&row) would allocate it per row
	err := s.scanRows(ctx, func(r scanner) error {
		if err := r.Scan(dest...); err != nil {
			return err
		}
		if item, _, _ := bytes.Cut(row, []byte{0x1f}); want != nil && !want[string(item)] {
			return nil
		}
		return g.addRow(row)
	}, `SELECT `+labelRow+` FROM labels`)
	if err != nil {
		return nil, err
	}
	out := g.items
	for _, labels := range out {
		sort.Slice(labels, func(i, j int) bool { return labels[i].Reviewer < labels[j].Reviewer })
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0].Item < out[j][0].Item })
	return out, nil
}
