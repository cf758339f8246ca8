package store

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"reflect"
	"slices"
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
//
// What it needs to know of before (groupBefore, groupDrafts) comes from the
// labels' checks when in allows (groupIn.fromChecks), else it is read
// under the lock; in's preps give the rows, their digests and the labels
// as read back.
func (s *Store) writeGroup(ctx context.Context, tx *preparedTx, labels []review.Label, first int, out []Settlement, in groupIn) ([]labelUndo, error) {
	if err := s.lockGroup(ctx, tx, labels); err != nil {
		return nil, err
	}
	n := len(labels)
	// Each item once, in the order of its first label, and its first label.
	var items []any
	itemFirst := make(map[string]int, n)
	for j, l := range labels {
		if _, ok := itemFirst[l.Item]; !ok {
			itemFirst[l.Item] = j
			items = append(items, l.Item)
		}
	}
	pk := groupKeys{items: items, arrays: s.onPostgres()}
	var undo []labelUndo
	var assigned map[string]map[string]string
	fromChecks := in.fromChecks()
	if fromChecks {
		undo, assigned = in.own.before(labels, in.prep, tx.held)
		in.own.fresh.fromChecks.Add(1)
	} else {
		pk.keys = make([]any, 0, 2*n)
		for _, l := range labels {
			pk.keys = append(pk.keys, l.Item, l.Reviewer)
		}
		var err error
		if undo, assigned, err = groupBefore(ctx, tx, labels, pk); err != nil {
			return nil, err
		}
		if in.own != nil {
			in.own.fresh.reread.Add(1)
		}
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
	if !fromChecks {
		if err := groupDrafts(ctx, tx, undo, pk); err != nil {
			return nil, err
		}
	}
	if s.onPostgres() {
		return s.writeGroupPostgres(ctx, tx, labels, first, out, groupRead{keys: pk, undo: undo, assigned: assigned, itemFirst: itemFirst})
	}
	now := s.now()
	rows, err := s.insertLabels(ctx, tx, labels, in.rows(), first)
	if err != nil {
		return nil, err
	}
	for j := range undo {
		if in.prep != nil {
			undo[j].written = in.prep[j].digest
		} else {
			undo[j].written = labelRowDigest(rows[9*j : 9*j+9])
		}
	}
	// By the rowids read with the assignments: no lookup of each key (a
	// third of the statement's time).
	assignments := make([]any, 1, 1+n)
	assignments[0] = now
	for _, u := range undo {
		assignments = append(assignments, u.assignment)
	}
	if _, err := tx.ExecContext(ctx, failFast(tx, `UPDATE assignments SET status = 'submitted', skip_reason = '', updated_at = ?
		WHERE rowid IN `+placeholderList(n)), assignments...); err != nil {
		return nil, err
	}
	for _, u := range undo {
		if u.draft != nil {
			if _, err := tx.ExecContext(ctx, `DELETE FROM drafts WHERE `+labelKey, u.item, u.reviewer); err != nil {
				return nil, err
			}
		}
	}
	closed, err := closedItems(ctx, tx, labels, in.stored(rows), assigned)
	if err != nil {
		return nil, err
	}
	// An item the group settles goes straight to agreed or disputed; the
	// others are now being labeled (an item already being labeled is
	// left as it is: no row is written again for nothing).
	labeling := labelingItems(items, undo, itemFirst, closed)
	if len(labeling) > 0 {
		if err := updateStatus(ctx, tx, "labeling", labeling, now); err != nil {
			return nil, err
		}
	}
	settled, err := s.settleGroup(ctx, tx, labels, in.prep, undo, closed, out)
	if err != nil {
		return nil, err
	}
	in.own.wrote(labels, undo, itemFirst, labeling, &settled)
	return undo, settled.write(ctx, tx, s.now())
}

// labelingItems are the items (of items, each once) whose first label in
// the group (itemFirst) found them new or sampled and that the group does
// not settle (closed): they are now being labeled.
func labelingItems(items []any, undo []labelUndo, itemFirst map[string]int, closed map[string][]review.Label) []any {
	var labeling []any
	for _, id := range items {
		if st := undo[itemFirst[id.(string)]].itemStatus; len(closed[id.(string)]) < 2 && (st == "new" || st == "sampled") {
			labeling = append(labeling, id)
		}
	}
	return labeling
}

// groupKeys are the (item, reviewer) keys of a group's labels, and its
// items (each once).
type groupKeys struct {
	items []any
	keys  []any // item, reviewer, item, reviewer, …
	// arrays: the lists are given as arrays (PostgreSQL), so that a
	// statement's text is the same whatever the group's size (each text
	// is parsed and planned once, not once for every size).
	arrays bool
}

// in is " IN (…)" of the items, or " = ANY(?)" with arrays.
func (k groupKeys) in() string {
	if k.arrays {
		return ` = ANY(?::text[])`
	}
	return ` IN ` + placeholderList(len(k.items))
}

// inArgs are in's arguments.
func (k groupKeys) inArgs() []any {
	if k.arrays {
		return []any{textArray(k.items)}
	}
	return k.items
}

// where selects the rows of the keys in a table with item_id and reviewer
// columns (prefixed with alias): the item ids listed apart, so that
// PostgreSQL looks them up by the primary key rather than hashing a scan
// of the table against the pairs.
func (k groupKeys) where(alias string) string {
	if k.arrays {
		return alias + `item_id = ANY(?::text[]) AND (` + alias + `item_id, ` + alias + `reviewer) IN (SELECT * FROM unnest(?::text[], ?::text[]))`
	}
	return alias + `item_id IN ` + placeholderList(len(k.items)) + ` AND (` + alias + `item_id, ` + alias + `reviewer) IN (VALUES ` +
		strings.TrimSuffix(strings.Repeat("(?, ?), ", len(k.keys)/2), ", ") + `)`
}

// args are where's arguments.
func (k groupKeys) args() []any {
	if k.arrays {
		return []any{textArray(k.items), everyNth(k.keys, 2, 0), everyNth(k.keys, 2, 1)}
	}
	return append(append(make([]any, 0, len(k.items)+len(k.keys)), k.items...), k.keys...)
}

// groupBefore reads what taking each label back needs to know of before
// (labelUndo without the draft and the written row); item is "" for a
// label whose reviewer is not assigned the item (or whose batch is still
// being written). It also returns every assignment of the group's items
// (item → reviewer → status, those of batches being written included):
// closedItems settles from them. Two queries for the whole group: the
// items' assignments, and each item once.
func groupBefore(ctx context.Context, tx *preparedTx, labels []review.Label, pk groupKeys) ([]labelUndo, map[string]map[string]string, error) {
	undo := make([]labelUndo, len(labels))
	at := make(map[[2]string][]int, len(labels))
	for j, l := range labels {
		k := [2]string{l.Item, l.Reviewer}
		at[k] = append(at[k], j)
	}
	in := pk.in()
	assigned := make(map[string]map[string]string, len(pk.items))
	rowid := "0"
	if tx.sqlite {
		rowid = "rowid"
	}
	err := eachRow(ctx, tx, `SELECT item_id, reviewer, status, skip_reason, batch IN (SELECT name FROM batches WHERE state = 'writing'), `+rowid+`
		FROM assignments WHERE item_id`+in, pk.inArgs(), func(rows *sql.Rows) error {
		var u labelUndo
		var writing bool
		if err := rows.Scan(&u.item, &u.reviewer, &u.assignStatus, &u.skipReason, &writing, &u.assignment); err != nil {
			return err
		}
		if assigned[u.item] == nil {
			assigned[u.item] = map[string]string{}
		}
		assigned[u.item][u.reviewer] = u.assignStatus
		if !writing {
			// A key twice in the group has one row (and is refused the
			// second time); each label gets its own copy.
			for _, j := range at[[2]string{u.item, u.reviewer}] {
				undo[j] = u
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	type itemBefore struct {
		status        string
		adjudications int64
		exports       int
	}
	before := make(map[string]itemBefore, len(pk.items))
	// With the statuses held (SQLite), each item's rowid too, and the
	// status the transaction left it in.
	rowid = "0"
	if tx.held != nil {
		rowid = "i.rowid"
		clear(tx.held.rowids) // the group's items only
	}
	err = eachRow(ctx, tx, `SELECT i.id, i.status, `+rowid+`, `+leadActs("i.id")+` FROM items i WHERE i.id`+in, pk.inArgs(), func(rows *sql.Rows) error {
		var id string
		var b itemBefore
		var r int64
		if err := rows.Scan(&id, &b.status, &r, &b.adjudications, &b.exports); err != nil {
			return err
		}
		if tx.held != nil {
			b.status = tx.held.read(id, r, b.status)
		}
		before[id] = b
		return nil
	})
	for j := range undo {
		if u := &undo[j]; u.item != "" {
			b := before[u.item]
			u.itemStatus, u.adjudications, u.exports = b.status, b.adjudications, b.exports
		}
	}
	return undo, assigned, err
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
func eachSaved(ctx context.Context, tx Queryer, query string, args []any, fn func([2]string, savedRow)) error {
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
// the rows inserted (labelRow's, one after the other). rows, when given,
// are those rows made already.
func (s *Store) insertLabels(ctx context.Context, tx *preparedTx, labels []review.Label, rows []any, first int) ([]any, error) {
	args := rows
	if args == nil {
		args = make([]any, 0, 9*len(labels))
		for _, l := range labels {
			row, err := s.labelRow(l)
			if err != nil {
				return nil, err
			}
			args = append(args, row...)
		}
	}
	// On PostgreSQL in a savepoint: after a failed statement it runs no
	// other in the transaction, and the row-by-row inserts must run. On
	// SQLite a failed statement is undone alone (and a savepoint would
	// keep a copy of every page the insert changes).
	insert := func() error {
		_, err := tx.ExecContext(ctx, insertLabel+strings.TrimSuffix(strings.Repeat(labelValues+", ", len(labels)), ", "), args...)
		return err
	}
	var err error
	if s.onPostgres() {
		err = trySavepoint(ctx, tx.tx, insert)
	} else {
		err = insert()
	}
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

// closedItems returns the labels (by reviewer) of the group's items none
// of whose assignments is open once the group's labels are written
// (assigned: every assignment of the items before). An item whose
// assignments are all the group's is settled from the rows the group
// inserted (stored: the group's j-th label as read back); one with another
// reviewer's label possibly stored reads its labels back.
func closedItems(ctx context.Context, tx *preparedTx, labels []review.Label, stored func(j int) (review.Label, error), assigned map[string]map[string]string) (map[string][]review.Label, error) {
	inGroup := make(map[[2]string]int, len(labels))
	for j, l := range labels {
		inGroup[[2]string{l.Item, l.Reviewer}] = j
	}
	closed := map[string][]review.Label{}
	var reread []any // closed items whose labels are read back
	for item, reviewers := range assigned {
		open, others := false, false
		for r, st := range reviewers {
			if _, ok := inGroup[[2]string{item, r}]; ok {
				continue
			}
			switch st {
			case AssignPending, AssignDraft:
				open = true
			default:
				others = true
			}
		}
		switch {
		case open:
		case others:
			reread = append(reread, item)
		default:
			names := slices.Sorted(maps.Keys(reviewers))
			ls := make([]review.Label, 0, len(names))
			for _, r := range names {
				l, err := stored(inGroup[[2]string{item, r}])
				if err != nil {
					return nil, err
				}
				ls = append(ls, l)
			}
			closed[item] = ls
		}
	}
	if len(reread) == 0 {
		return closed, nil
	}
	err := eachRow(ctx, tx, `SELECT `+labelColumns+` FROM labels l WHERE item_id IN `+placeholderList(len(reread))+` ORDER BY item_id, reviewer`, reread,
		func(rows *sql.Rows) error {
			l, err := scanLabel(rows)
			if err == nil {
				closed[l.Item] = append(closed[l.Item], l)
			}
			return err
		})
	return closed, err
}

// rowValues scans the values of a row as written (labelRow's), as a
// query would return them.
type rowValues []any

func (r rowValues) Scan(dest ...any) error {
	if len(dest) != len(r) {
		return fmt.Errorf("scan %d values into %d", len(r), len(dest))
	}
	for i, d := range dest {
		to := reflect.ValueOf(d).Elem()
		v := reflect.ValueOf(r[i])
		if v.Kind() != to.Kind() {
			return fmt.Errorf("scan value %d: %T into %T", i, r[i], d)
		}
		to.Set(v.Convert(to.Type()))
	}
	return nil
}

// settleGroup settles the closed items, in the order of their last label
// in the group, and returns their outcomes, for the caller to write
// together (settlements). Each label gets the Settlement that submitting the labels
// one by one would have given it: an item settles after each of its labels
// that leaves none of its assignments open (a label on a skipped
// assignment after the others is compared again), and is written once,
// as its last label here settles it. An item settled from exactly the
// labels its preps (prep, when given) compared takes their outcome.
func (s *Store) settleGroup(ctx context.Context, tx *preparedTx, labels []review.Label, prep []*labelPrep, undo []labelUndo, closed map[string][]review.Label, out []Settlement) (settlements, error) {
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
	last := make(map[string]int, len(closed))
	opening := make(map[string]int, len(closed)) // labels still to come on an open assignment
	here := map[*settlePrep]int{}                // the preps' labels in the group
	for j, l := range labels {
		last[l.Item] = j
		if st := undo[j].assignStatus; st == AssignPending || st == AssignDraft {
			opening[l.Item]++
		}
		if prep != nil && prep[j].settle != nil {
			here[prep[j].settle]++
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
				return settled, err
			}
		}
		var m *settlePrep
		if prep != nil {
			m = prep[j].settle
		}
		if m != nil && !hold && len(ls) == m.n && here[m] == m.n {
			m.add(&settled, l.Item, s.now())
			out[j] = Settlement{Settled: true, Comparison: m.cmp}
			continue
		}
		if o := review.Settle(0, ls, hold); o.Settled {
			if err := settled.add(l.Item, o, s.now()); err != nil {
				return settled, err
			}
			out[j] = Settlement{Settled: true, Comparison: o.Comparison}
		}
	}
	return settled, nil
}
