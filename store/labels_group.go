package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/goldtrace/goldtrace/review"
)

// labelGroup is how many labels SubmitLabels writes with one set of
// statements: a statement per label cost most of a bulk submission (each
// is a round through the driver, and most were prepared anew). On
// PostgreSQL, where every statement is a round trip to the server (slow
// on a busy machine), groups are four times larger.
func (s *Store) labelGroup() int {
	if s.onPostgres() {
		return 1024
	}
	return 256
}

// writeGroup submits labels (labels[0] is the call's label number first)
// with a few statements for the whole group, each label exactly as
// submitLabel would: refused if its reviewer is not assigned the item, has
// submitted it already (or earlier in the group) or the item is
// adjudicated; written with its assignment submitted and draft removed;
// and each item whose assignments are then all closed settled once, its
// Settlement given to its last label in the group. It returns how to take
// each label back. It is long because those steps run as a few statements
// over the whole group, in one place, so that each label's refusal and its
// undo stay in step.
func (s *Store) writeGroup(ctx context.Context, tx *preparedTx, labels []review.Label, first int, out []Settlement) ([]labelUndo, error) {
	n := len(labels)
	var items []any // each item once, in the order of its first label
	keys := make([]any, 0, 2*n)
	for _, l := range labels {
		keys = append(keys, l.Item, l.Reviewer)
	}
	itemFirst := make(map[string]int, n) // item → its first label here
	for j, l := range labels {
		if _, ok := itemFirst[l.Item]; !ok {
			itemFirst[l.Item] = j
			items = append(items, l.Item)
		}
	}
	pk := groupKeys{items: items, keys: keys}
	undo, err := groupBefore(ctx, tx, labels, pk)
	if err != nil {
		return nil, err
	}
	seen := make(map[[2]string]bool, n)
	for j, l := range labels {
		u := &undo[j]
		var err error
		switch k := [2]string{l.Item, l.Reviewer}; {
		case u.item == "":
			err = fmt.Errorf("%s is not assigned item %s: %w", l.Reviewer, l.Item, ErrNotFound)
		case u.assignStatus == AssignSubmitted || seen[k]:
			err = fmt.Errorf("%s already submitted a label for %s: %w", l.Reviewer, l.Item, ErrConflict)
		case u.itemStatus == review.GoldAdjudicated:
			err = fmt.Errorf("item %s is already settled: %w", l.Item, ErrConflict)
		default:
			seen[k] = true
		}
		if err != nil {
			return nil, &LabelError{Index: first + j, Err: err}
		}
		// A later label of an item finds it labeling, as the first
		// label of the group left it.
		if f := itemFirst[l.Item]; f != j {
			if st := undo[f].itemStatus; st == "new" || st == "sampled" {
				u.itemStatus = "labeling"
			}
		}
	}
	if err := groupDrafts(ctx, tx, undo, pk); err != nil {
		return nil, err
	}
	now := s.now()
	rows, err := s.insertLabels(ctx, tx, labels, first)
	if err != nil {
		return nil, err
	}
	for j := range undo {
		undo[j].written = labelRowDigest(rows[9*j : 9*j+9])
	}
	if _, err := tx.ExecContext(ctx, `UPDATE assignments SET status = 'submitted', skip_reason = '', updated_at = ?
		WHERE `+pk.where(""), append([]any{now}, pk.args()...)...); err != nil {
		return nil, err
	}
	for _, u := range undo {
		if u.draft != nil {
			if _, err := tx.ExecContext(ctx, `DELETE FROM drafts WHERE `+labelKey, u.item, u.reviewer); err != nil {
				return nil, err
			}
		}
	}
	closed, err := closedItems(ctx, tx, items, placeholderList(len(items)))
	if err != nil {
		return nil, err
	}
	// An item the group settles goes straight to agreed or disputed; the
	// others are now being labeled.
	var labeling []any
	for _, id := range items {
		if len(closed[id.(string)]) < 2 {
			labeling = append(labeling, id)
		}
	}
	if len(labeling) > 0 {
		if _, err := tx.ExecContext(ctx, `UPDATE items SET status = 'labeling', updated_at = ? WHERE id IN (?`+strings.Repeat(", ?", len(labeling)-1)+`)
			AND status IN ('new', 'sampled')`, append([]any{now}, labeling...)...); err != nil {
			return nil, err
		}
	}
	if err := s.settleGroup(ctx, tx, labels, undo, closed, out); err != nil {
		return nil, err
	}
	return undo, nil
}

// groupKeys are the (item, reviewer) keys of a group's labels, and its
// items (each once).
type groupKeys struct {
	items []any
	keys  []any // item, reviewer, item, reviewer, …
}

// where selects the rows of the keys in a table with item_id and reviewer
// columns (prefixed with alias): the item ids listed apart, so that
// PostgreSQL looks them up by the primary key rather than hashing a scan
// of the table against the pairs.
func (k groupKeys) where(alias string) string {
	return alias + `item_id IN ` + placeholderList(len(k.items)) + ` AND (` + alias + `item_id, ` + alias + `reviewer) IN (VALUES ` +
		strings.TrimSuffix(strings.Repeat("(?, ?), ", len(k.keys)/2), ", ") + `)`
}

// args are where's arguments.
func (k groupKeys) args() []any {
	return append(append(make([]any, 0, len(k.items)+len(k.keys)), k.items...), k.keys...)
}

// groupBefore reads what taking each label back needs to know of before
// (labelUndo without the draft and the written row); item is "" for a
// label whose reviewer is not assigned the item (or whose batch is still
// being written).
func groupBefore(ctx context.Context, tx *preparedTx, labels []review.Label, pk groupKeys) ([]labelUndo, error) {
	undo := make([]labelUndo, len(labels))
	at := make(map[[2]string][]int, len(labels))
	for j, l := range labels {
		k := [2]string{l.Item, l.Reviewer}
		at[k] = append(at[k], j)
	}
	err := eachRow(ctx, tx, `SELECT a.item_id, a.reviewer, a.status, a.skip_reason, i.status, `+leadActs("a.item_id")+`
		FROM assignments a JOIN items i ON i.id = a.item_id
		WHERE `+pk.where("a.")+` AND a.batch NOT IN (SELECT name FROM batches WHERE state = 'writing')`, pk.args(), func(rows *sql.Rows) error {
		var u labelUndo
		if err := rows.Scan(&u.item, &u.reviewer, &u.assignStatus, &u.skipReason, &u.itemStatus, &u.adjudications, &u.exports); err != nil {
			return err
		}
		// A key twice in the group has one row (and is refused the
		// second time); each label gets its own copy.
		for _, j := range at[[2]string{u.item, u.reviewer}] {
			undo[j] = u
		}
		return nil
	})
	return undo, err
}

// groupDrafts reads the drafts the labels replace into undo.
func groupDrafts(ctx context.Context, tx *preparedTx, undo []labelUndo, pk groupKeys) error {
	drafts := map[[2]string]*savedRow{}
	if err := eachSaved(ctx, tx, `SELECT * FROM drafts WHERE `+pk.where(""), pk.args(), func(k [2]string, r savedRow) {
		drafts[k] = &r
	}); err != nil {
		return err
	}
	for j := range undo {
		if len(drafts) > 0 {
			undo[j].draft = drafts[[2]string{undo[j].item, undo[j].reviewer}]
		}
	}
	return nil
}

// eachSaved runs a SELECT * whose first two columns are item_id and
// reviewer, and hands each row to fn as a savedRow.
func eachSaved(ctx context.Context, tx *preparedTx, query string, args []any, fn func([2]string, savedRow)) error {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	all, err := rows.Columns()
	if err != nil {
		return err
	}
	cols := savedColumns(all)
	if len(cols) < 2 || cols[0] != "item_id" || cols[1] != "reviewer" {
		return fmt.Errorf("saved rows: columns %v do not start with item_id, reviewer", cols)
	}
	for rows.Next() {
		r, err := scanSaved(rows, all, cols)
		if err != nil {
			return err
		}
		item, _ := r.vals[0].(string)
		reviewer, _ := r.vals[1].(string)
		fn([2]string{item, reviewer}, r)
	}
	return rows.Err()
}

// insertLabels inserts the labels' rows with one statement; when that
// fails, row by row, so the error names the label that failed. It returns
// the rows inserted (labelRow's, one after the other).
func (s *Store) insertLabels(ctx context.Context, tx *preparedTx, labels []review.Label, first int) ([]any, error) {
	args := make([]any, 0, 9*len(labels))
	for _, l := range labels {
		row, err := s.labelRow(l)
		if err != nil {
			return nil, err
		}
		args = append(args, row...)
	}
	// In a savepoint: after a failed statement PostgreSQL runs no other
	// in the transaction, and the row-by-row inserts must run.
	err := trySavepoint(ctx, tx.tx, func() error {
		_, err := tx.ExecContext(ctx, insertLabel+strings.TrimSuffix(strings.Repeat(labelValues+", ", len(labels)), ", "), args...)
		return err
	})
	if err == nil {
		return args, nil
	}
	for j := range labels {
		if _, err := tx.ExecContext(ctx, insertLabel+labelValues, args[9*j:9*j+9]...); err != nil {
			return nil, &LabelError{Index: first + j, Err: classify(err)}
		}
	}
	return nil, classify(err)
}

// closedItems loads the labels (by reviewer) of the items (selected by in)
// none of whose assignments is open any more.
func closedItems(ctx context.Context, tx *preparedTx, items []any, in string) (map[string][]review.Label, error) {
	open := map[string]bool{}
	if err := eachRow(ctx, tx, `SELECT DISTINCT item_id FROM assignments WHERE item_id IN `+in+` AND status IN ('pending', 'draft')`, items,
		func(rows *sql.Rows) error {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			open[id] = true
			return nil
		}); err != nil {
		return nil, err
	}
	closed := map[string][]review.Label{}
	err := eachRow(ctx, tx, `SELECT `+labelColumns+` FROM labels l WHERE item_id IN `+in+` ORDER BY item_id, reviewer`, items,
		func(rows *sql.Rows) error {
			l, err := scanLabel(rows)
			if err == nil && !open[l.Item] {
				closed[l.Item] = append(closed[l.Item], l)
			}
			return err
		})
	return closed, err
}

// settleGroup settles the closed items, in the order of their last label
// in the group, their outcomes written together (settlements). Each label gets the Settlement that submitting the labels
// one by one would have given it: an item settles after each of its labels
// that leaves none of its assignments open (a label on a skipped
// assignment after the others is compared again), and is written once,
// as its last label here settles it.
func (s *Store) settleGroup(ctx context.Context, tx *preparedTx, labels []review.Label, undo []labelUndo, closed map[string][]review.Label, out []Settlement) error {
	var held *bool
	heldOnce := func() (bool, error) {
		if held == nil {
			h, err := reviewAgreed(ctx, tx)
			if err != nil {
				return false, err
			}
			held = &h
		}
		return *held, nil
	}
	var settled settlements
	now := s.now()
	last := make(map[string]int, len(closed))
	opening := make(map[string]int, len(closed)) // labels still to come on an open assignment
	for j, l := range labels {
		last[l.Item] = j
		if st := undo[j].assignStatus; st == AssignPending || st == AssignDraft {
			opening[l.Item]++
		}
	}
	arrived := map[string]map[string]bool{} // item → reviewers whose label came later in the group
	for j, l := range labels {
		if _, ok := closed[l.Item]; ok {
			if arrived[l.Item] == nil {
				arrived[l.Item] = map[string]bool{}
				for _, k := range labels[j:] {
					if k.Item == l.Item {
						arrived[l.Item][k.Reviewer] = true
					}
				}
			}
			delete(arrived[l.Item], l.Reviewer)
		}
		ls, ok := closed[l.Item]
		if st := undo[j].assignStatus; st == AssignPending || st == AssignDraft {
			opening[l.Item]--
		}
		if !ok || opening[l.Item] > 0 {
			continue
		}
		if last[l.Item] != j {
			// Compared now, one by one, and again by a later label.
			var present []review.Label
			for _, p := range ls {
				if !arrived[l.Item][p.Reviewer] {
					present = append(present, p)
				}
			}
			if o := review.Settle(0, present, false); o.Settled {
				out[j] = Settlement{Settled: true, Comparison: o.Comparison}
			}
			continue
		}
		hold := false
		if len(ls) >= 2 {
			var err error
			if hold, err = heldOnce(); err != nil {
				return err
			}
		}
		if o := review.Settle(0, ls, hold); o.Settled {
			if err := settled.add(l.Item, o, s.now()); err != nil {
				return err
			}
			out[j] = Settlement{Settled: true, Comparison: o.Comparison}
		}
	}
	return settled.write(ctx, tx, now)
}
