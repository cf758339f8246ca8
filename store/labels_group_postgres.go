package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/store/postgres"
)

// On PostgreSQL a group of labels (writeGroup) is written with two
// statements whatever its size, each given its rows as arrays (a column
// an array, unnest making the rows again): the labels inserted with their
// assignments submitted and their drafts removed, and then the group's
// settlements written with every item's new status. Their texts never
// change, so the server parses and plans each once per connection (the
// driver keeps them prepared), where a statement listing its rows as
// placeholders is another text for every size of group, planned again at
// every run, and one statement per kind of write is a round trip each.

// groupRead is what writeGroup read and checked of a group before its
// writes: its keys, how to take each label back (its labelUndo), the
// assignments of its items (groupBefore's), and each item's first label.
type groupRead struct {
	keys      groupKeys
	undo      []labelUndo
	assigned  map[string]map[string]string
	itemFirst map[string]int
}

// writeGroupPostgres is writeGroup's writes on PostgreSQL, for a group
// read and checked (g): the same rows written, in two statements.
func (s *Store) writeGroupPostgres(ctx context.Context, tx *preparedTx, labels []review.Label, first int, out []Settlement, g groupRead) ([]labelUndo, error) {
	n := len(labels)
	rows := make([]any, 0, 9*n)
	cols := make([][]string, 9)
	var seconds, saw []int64
	for c := range cols {
		if c != 6 && c != 7 {
			cols[c] = make([]string, 0, n)
		}
	}
	for _, l := range labels {
		row, err := s.labelRow(l)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row...)
		for c, v := range row {
			switch c {
			case 6:
				seconds = append(seconds, int64(v.(int)))
			case 7:
				saw = append(saw, int64(v.(int)))
			default:
				cols[c] = append(cols[c], v.(string))
			}
		}
	}
	for j := range g.undo {
		g.undo[j].written = labelRowDigest(rows[9*j : 9*j+9])
	}
	draftItems, draftReviewers := []string{}, []string{}
	for _, u := range g.undo {
		if u.draft != nil {
			draftItems, draftReviewers = append(draftItems, u.item), append(draftReviewers, u.reviewer)
		}
	}
	now := s.now()
	args := []any{cols[0], cols[1], cols[2], cols[3], cols[4], cols[5], seconds, saw, cols[8], now, draftItems, draftReviewers}
	if _, err := tx.tx.ExecContext(ctx, pgWriteLabels, args...); err != nil {
		return nil, classify(err)
	}
	closed, err := closedItems(ctx, tx, labels, groupIn{}.stored(rows), g.assigned)
	if err != nil {
		return nil, err
	}
	settled, err := s.settleGroup(ctx, tx, labels, nil, g.undo, closed, out)
	if err != nil {
		return nil, err
	}
	// Each item's new status, once: labeling, or what it settled to.
	status := map[string]string{}
	var ids, to []string
	set := func(id, st string) {
		if _, ok := status[id]; !ok {
			ids = append(ids, id)
		}
		status[id] = st
	}
	for _, id := range labelingItems(g.keys.items, g.undo, g.itemFirst, closed) {
		set(id.(string), "labeling")
	}
	for _, id := range settled.agreed {
		set(id.(string), "agreed")
	}
	for _, id := range settled.disputed {
		set(id.(string), "disputed")
	}
	if len(ids) == 0 {
		return g.undo, nil
	}
	for _, id := range ids {
		to = append(to, status[id])
	}
	args = make([]any, 0, 18)
	for c := range 11 {
		args = append(args, everyNth(settled.golds, 11, c))
	}
	for c := range 4 {
		args = append(args, everyNth(settled.disputes, 4, c))
	}
	args = append(args, ids, to, now)
	if _, err := tx.tx.ExecContext(ctx, pgWriteSettled, args...); err != nil {
		return nil, fmt.Errorf("settle %d items: %w", len(ids), err)
	}
	return g.undo, nil
}

// pgWriteLabels inserts a group's labels ($1–$9: labelRow's columns, an
// array each), submits their assignments (at $10) and removes the drafts
// they replace ($11, $12: their items and reviewers).
const pgWriteLabels = `WITH assigned AS (UPDATE assignments SET status = 'submitted', skip_reason = '', updated_at = $10
		WHERE item_id = ANY($1::text[]) AND (item_id, reviewer) IN (SELECT * FROM unnest($1::text[], $2::text[]))),
	drafted AS (DELETE FROM drafts WHERE item_id = ANY($11::text[]) AND (item_id, reviewer) IN (SELECT * FROM unnest($11::text[], $12::text[])))
	INSERT INTO labels(item_id, reviewer, decision, calls, rationale, guide_version, seconds, saw_observed, submitted_at)
	SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::text[])`

// pgWriteSettled writes a group's settlements and its items' statuses:
// the agreed items' gold answers upserted ($1–$11, upsertGold's columns);
// the disputed items' agreed gold answers removed and their disputes
// upserted ($12–$15, upsertDispute's); and each item ($16) given its
// status ($17) at $18.
var pgWriteSettled = `WITH answers AS (` + fromArrays(upsertGold, goldValues, 1, 11) + `),
	unagreed AS (DELETE FROM gold WHERE item_id = ANY($12::text[]) AND status = 'agreed'),
	disputed AS (` + fromArrays(upsertDispute, disputeValues, 12, 4) + `)
	UPDATE items SET status = k.status, updated_at = $18 FROM unnest($16::text[], $17::text[]) k(id, status)
	WHERE items.id = ANY($16::text[]) AND items.id = k.id`

// fromArrays is a one-row INSERT … VALUES (…) statement (upsert), given
// with its VALUES tuple of n text columns, made to insert the rows of n
// arrays, the first $from.
func fromArrays(stmt, values string, from, n int) string {
	params := make([]string, n)
	for i := range params {
		params[i] = fmt.Sprintf("$%d::text[]", from+i)
	}
	i := strings.Index(stmt, "VALUES "+values)
	return stmt[:i] + "SELECT * FROM unnest(" + strings.Join(params, ", ") + ")" + stmt[i+len("VALUES "+values):]
}

// textArray is a list of strings given as []any, as an array argument.
func textArray(vals []any) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = v.(string)
	}
	return out
}

// everyNth is column c of rows of n strings given one after the other.
func everyNth(vals []any, n, c int) []string {
	out := make([]string, 0, len(vals)/n)
	for i := c; i < len(vals); i += n {
		out = append(out, vals[i].(string))
	}
	return out
}

// On PostgreSQL a labels import of many labels is written by two writers
// at once, on two connections (the server works on both cores): the
// labels are split between them by their item, so that each item's labels
// are written by one writer in their order. Neither takes the writers'
// lock exclusively: each transaction takes it shared and the locks of the
// items it writes (postgres.ScopedKeys), as a reviewer's submit takes its
// item's. A reviewer's write to one of them waits for that transaction (a
// chunk: 200 ms of work at most, never stretched), and one to any other
// item does not wait at all; an item's last two labels, one imported and
// one submitted, are still written one after the other, and it settles
// once. The two writers' items are split by their lock's number, so that
// neither ever waits for a lock the other holds. The labels of the last
// item are written last, alone, in the transaction that writes the
// import's audit entry (taking the writers' lock exclusively, as before).

// labelsWriters is how many writers write a labels import on PostgreSQL,
// and labelsParallelMin the fewest labels for which more than one does.
const labelsWriters = 2

var labelsParallelMin = 2048

// labelsPerKeyedTx bounds the labels of one of those writers'
// transactions (a group more at most), and so the items' locks it holds:
// PostgreSQL's table of locks has room for 64 a connection.
const labelsPerKeyedTx = 1024

// lockGroup takes the locks of a group's items, in a transaction of one
// of those writers (postgres.HasKeys), before it reads them.
func (s *Store) lockGroup(ctx context.Context, tx *preparedTx, labels []review.Label) error {
	if !s.onPostgres() || !postgres.HasKeys(ctx) {
		return nil
	}
	keys := make([]string, len(labels))
	for i, l := range labels {
		keys[i] = itemLockKey(l.Item)
	}
	return postgres.LockKeys(ctx, tx.tx, keys)
}

// submitLabelsPostgres is submitLabels on PostgreSQL.
func (s *Store) submitLabelsPostgres(ctx context.Context, labels []review.Label, pace bulkPace) ([]Settlement, error) {
	if len(labels) < labelsParallelMin {
		out, undo, err := s.writeLabels(ctx, allLabels(labels), pace)
		if err != nil {
			return nil, s.takeBack(ctx, err, undo, pace)
		}
		return out, nil
	}
	// Each writer's labels (their numbers), and the last item's.
	var parts [labelsWriters + 1][]int
	lastItem := labels[len(labels)-1].Item
	for i, l := range labels {
		p := labelsWriters
		if l.Item != lastItem {
			p = int(uint32(postgres.KeyLock(itemLockKey(l.Item))) % labelsWriters)
		}
		parts[p] = append(parts[p], i)
	}
	out := make([]Settlement, len(labels))
	undos := make([][]labelUndo, len(parts))
	errs := make([]error, len(parts))
	write := func(ctx context.Context, p int, pace bulkPace) {
		part := make([]review.Label, len(parts[p]))
		for k, i := range parts[p] {
			part[k] = labels[i]
		}
		sets, undo, err := s.writeLabels(ctx, allLabels(part), pace)
		undos[p] = undo
		// A label's number in the part is its number in the call.
		if le := (*LabelError)(nil); errors.As(err, &le) && le.Index < len(parts[p]) {
			le.Index = parts[p][le.Index]
		}
		errs[p] = err
		for k, i := range parts[p] {
			if k < len(sets) {
				out[i] = sets[k]
			}
		}
	}
	// The writers' chunks are never stretched (a reviewer waiting for an
	// item's lock is not a writer waiting for the writers' lock), and
	// none writes the audit entry.
	each := pace
	each.stretch, each.auditLast, each.maxUnits = 0, false, labelsPerKeyedTx
	wctx, cancel := context.WithCancel(postgres.ScopedKeys(ctx))
	var wg sync.WaitGroup
	for p := range labelsWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if write(wctx, p, each); errs[p] != nil {
				cancel() // the other writer stops too
			}
		}()
	}
	wg.Wait()
	cancel()
	err := errors.Join(firstReal(errs[:labelsWriters])...)
	if err == nil {
		write(ctx, labelsWriters, pace)
		err = errs[labelsWriters]
	}
	if err != nil {
		var undo []labelUndo
		for _, u := range undos {
			undo = append(undo, u...)
		}
		return nil, s.takeBack(ctx, err, undo, pace)
	}
	return out, nil
}

// firstReal is the writers' errors but a writer's cancellation by another
// writer that failed: the one that failed says why.
func firstReal(errs []error) []error {
	var out, cancelled []error
	for _, err := range errs {
		switch {
		case err == nil:
		case errors.Is(err, context.Canceled):
			cancelled = append(cancelled, err)
		default:
			out = append(out, err)
		}
	}
	if len(out) == 0 {
		return cancelled
	}
	return out
}

// itemLockKey is the key an item's writes are scoped to (itemWrite).
func itemLockKey(itemID string) string { return "item " + itemID }
