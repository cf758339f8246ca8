package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
)

// heldStatuses are the status changes a labels transaction makes to its
// items on SQLite, held and written once, at its end (before the commit),
// in the items' rowid order: each changed row is written once, and each
// page of the items table visited once. The labels of an import come in
// the order of their batch, which is not the order of the items table
// (the order their traces were imported): written group by group, the
// changes visited the table's pages at random, as many times as the page
// cache let them go in between (25k items' changes: 0.69–0.78 s as they
// came, 0.33–0.36 s in rowid order). Until then the transaction's reads of
// an item's status (groupBefore's) take the held one, so each label is
// checked, written and taken back exactly as when every change was
// written at once.
type heldStatuses struct {
	rowids map[string]int64 // the items of the group groupBefore read last, by id
	held   map[string]heldStatus
}

// heldStatus is an item's status as the transaction left it, and when.
type heldStatus struct {
	rowid      int64
	status, at string
}

func newHeldStatuses() *heldStatuses {
	return &heldStatuses{rowids: map[string]int64{}, held: map[string]heldStatus{}}
}

// read records an item read by the transaction (its rowid, for the
// write), and returns its status as the transaction left it (stored is
// the row's).
func (h *heldStatuses) read(id string, rowid int64, stored string) string {
	h.rowids[id] = rowid
	if st, ok := h.held[id]; ok {
		return st.status
	}
	return stored
}

// set holds status for the items ids, set at at. Each must be an item
// of the group read last.
func (h *heldStatuses) set(status string, ids []any, at string) error {
	for _, id := range ids {
		id := id.(string)
		rowid, ok := h.rowids[id]
		if !ok {
			return fmt.Errorf("item %s: status %s held before the item was read", id, status)
		}
		h.held[id] = heldStatus{rowid: rowid, status: status, at: at}
	}
	return nil
}

// heldPerStatement bounds the rows of one of write's UPDATEs (three values
// a row).
const heldPerStatement = 500

// write writes the held statuses, in rowid order, and forgets them.
func (h *heldStatuses) write(ctx context.Context, tx *preparedTx) error {
	rows := make([]heldStatus, 0, len(h.held))
	for _, st := range h.held {
		rows = append(rows, st)
	}
	slices.SortFunc(rows, func(a, b heldStatus) int { return cmp.Compare(a.rowid, b.rowid) })
	for start := 0; start < len(rows); start += heldPerStatement {
		part := rows[start:min(start+heldPerStatement, len(rows))]
		args := make([]any, 0, 3*len(part))
		for _, r := range part {
			args = append(args, r.rowid, r.status, r.at)
		}
		// UPDATE … FROM: the rows are visited in the order given.
		res, err := tx.ExecContext(ctx, failFast(tx, `UPDATE items SET status = v.column2, updated_at = v.column3 FROM (VALUES `+
			strings.TrimSuffix(strings.Repeat("(?, ?, ?), ", len(part)), ", ")+`) AS v WHERE items.rowid = v.column1`), args...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err == nil && n != int64(len(part)) {
			return fmt.Errorf("items' statuses: %d of %d rows written (an item was removed meanwhile?)", n, len(part))
		}
	}
	clear(h.held)
	return nil
}
