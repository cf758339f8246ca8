package store

import (
	"slices"

	"github.com/goldtrace/goldtrace/review"
)

// groupIn is what writeGroup is given beside the labels: their preps
// (LabelStream.Checked; nil when they have none) and what the labels
// import has written so far (nil outside one).
type groupIn struct {
	prep []*labelPrep
	own  *importWrites
}

// rows are the preps' rows one after the other (insertLabels'), nil
// without preps.
func (in groupIn) rows() []any {
	if in.prep == nil {
		return nil
	}
	rows := make([]any, 0, 9*len(in.prep))
	for _, p := range in.prep {
		rows = append(rows, p.row...)
	}
	return rows
}

// stored is the group's j-th label as it reads back: its prep's, or
// scanned from rows (insertLabels').
func (in groupIn) stored(rows []any) func(j int) (review.Label, error) {
	return func(j int) (review.Label, error) {
		if in.prep != nil {
			return in.prep[j].stored, nil
		}
		return scanLabel(rowValues(rows[9*j : 9*j+9]))
	}
}

// fromChecks reports whether a group's labels can be written from what
// was read of their items beside the writer, without reading it again
// under the lock: every one of them has its item's before, and nothing but
// the import itself has committed since it was read (labelFreshness,
// looked at by this transaction).
func (in groupIn) fromChecks() bool {
	if in.prep == nil || in.own == nil {
		return false
	}
	for _, p := range in.prep {
		if p.target == nil || !in.own.fresh.fresh(p.target.stamp.epoch) {
			return false
		}
	}
	return true
}

// importWrites is what a labels import has written so far, as the writer
// knows it: the assignments it submitted and the status it left each item
// it labeled in. A check may have read an item before or after the import
// wrote it; this is laid over what it read.
type importWrites struct {
	fresh *labelFreshness
	items map[string]itemWritten
}

// itemWritten is an item the import labeled: the status it left it in,
// and the reviewers whose assignments it submitted.
type itemWritten struct {
	status    string
	submitted []string
}

func newImportWrites(fresh *labelFreshness) *importWrites {
	if fresh == nil {
		return nil
	}
	return &importWrites{fresh: fresh, items: map[string]itemWritten{}}
}

// before is groupBefore and groupDrafts made from the labels' targets
// (fromChecks), with the import's own writes laid over them: the same
// labelUndo for each label and the same assignments of each item. As
// groupBefore, it tells held (when set) the group's items.
func (w *importWrites) before(labels []review.Label, prep []*labelPrep, held *heldStatuses) ([]labelUndo, map[string]map[string]string) {
	if held != nil {
		clear(held.rowids)
	}
	undo := make([]labelUndo, len(labels))
	assigned := make(map[string]map[string]string, len(labels))
	for j, l := range labels {
		t := prep[j].target
		if !t.found {
			continue
		}
		it, wrote := w.items[l.Item]
		if _, ok := assigned[l.Item]; !ok {
			as := make(map[string]string, len(t.assigns))
			for _, a := range t.assigns {
				as[a.reviewer] = a.status
				if wrote && slices.Contains(it.submitted, a.reviewer) {
					as[a.reviewer] = AssignSubmitted
				}
			}
			assigned[l.Item] = as
		}
		a, ok := t.assign(l.Reviewer)
		if !ok || a.writing {
			continue
		}
		u := labelUndo{item: l.Item, reviewer: l.Reviewer, assignment: a.row, assignStatus: a.status, skipReason: a.skipReason,
			itemStatus: t.status, adjudications: t.adjudications, exports: t.exports, draft: t.drafts[l.Reviewer]}
		if wrote {
			u.itemStatus = it.status
			if slices.Contains(it.submitted, l.Reviewer) {
				u.assignStatus, u.skipReason, u.draft = AssignSubmitted, "", nil
			}
		}
		if held != nil {
			u.itemStatus = held.read(l.Item, t.rowid, u.itemStatus)
		}
		undo[j] = u
	}
	return undo, assigned
}

// wrote records a group written: its labels' assignments are submitted,
// and each of its items is agreed or disputed as settled, labeling if in
// labeling, else as its first label (itemFirst) found it.
func (w *importWrites) wrote(labels []review.Label, undo []labelUndo, itemFirst map[string]int, labeling []any, settled *settlements) {
	if w == nil {
		return
	}
	status := make(map[string]string, len(itemFirst))
	for _, set := range []struct {
		ids    []any
		status string
	}{{labeling, "labeling"}, {settled.agreed, review.GoldAgreed}, {settled.disputed, "disputed"}} {
		for _, id := range set.ids {
			status[id.(string)] = set.status
		}
	}
	for _, l := range labels {
		it := w.items[l.Item]
		it.submitted = append(it.submitted, l.Reviewer)
		if it.status = status[l.Item]; it.status == "" {
			it.status = undo[itemFirst[l.Item]].itemStatus
		}
		w.items[l.Item] = it
	}
}
