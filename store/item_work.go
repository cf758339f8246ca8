package store

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/goldtrace/goldtrace/store/postgres"
	"github.com/goldtrace/goldtrace/trace"
)

// ItemWork is what the label screen shows beside an item of a reviewer's
// queue: the item, the reviewer's draft of it, its notes (all of them:
// the caller keeps what the reviewer may read) and the guide in force.
type ItemWork struct {
	Item         trace.Item
	Draft        []byte // nil without a draft
	DraftSeconds int
	Notes        []Note
	// Guide is the guide in force; HasGuide is false when none was ever
	// set.
	Guide    GuideVersion
	HasGuide bool
	// Assigned: the reviewer is assigned the item (in a batch not being
	// written: Assignment finds it). Set even when the item is not found.
	Assigned bool
}

// ItemWork loads the item itemID with reviewer's draft of it, its notes
// and the guide in force: Item, Draft, Notes and CurrentGuide in one call,
// which on PostgreSQL is one round trip (their statements pipelined)
// instead of seven; the label screen loads one when it opens an item by
// its id. It carries ctx's UserCheck.
func (s *Store) ItemWork(ctx context.Context, itemID, reviewer string) (ItemWork, error) {
	if s.pg {
		return s.itemWorkPiped(ctx, itemID, reviewer)
	}
	var w ItemWork
	_, err := s.Assignment(ctx, itemID, reviewer)
	if w.Assigned = err == nil; err != nil && !errors.Is(err, ErrNotFound) {
		return w, err
	}
	if w.Item, err = s.Item(ctx, itemID); err != nil {
		return w, err
	}
	if w.Draft, w.DraftSeconds, err = s.Draft(ctx, itemID, reviewer); err != nil && !errors.Is(err, ErrNotFound) {
		return w, err
	}
	if w.Notes, err = s.Notes(ctx, itemID); err != nil {
		return w, err
	}
	w.Guide, err = s.CurrentGuide(ctx)
	w.HasGuide = err == nil
	if errors.Is(err, ErrNotFound) {
		err = nil
	}
	return w, err
}

func (s *Store) itemWorkPiped(ctx context.Context, itemID, reviewer string) (ItemWork, error) {
	var r itemWorkRead
	assigned := postgres.Stmt{Query: `SELECT 1 FROM assignments WHERE item_id = ? AND reviewer = ?
		AND batch NOT IN (SELECT name FROM batches WHERE state = 'writing')`, Args: []any{itemID, reviewer},
		Rows: func(postgres.Row) error { r.w.Assigned = true; return nil }}
	if err := s.readChecked(ctx, append(r.stmts("?", []any{itemID}, reviewer), assigned)...); err != nil {
		return ItemWork{}, err
	}
	return s.itemWorkOf(ctx, itemID, &r)
}

// itemWorkRead is what ItemWork's statements read on PostgreSQL.
type itemWorkRead struct {
	w            ItemWork
	item, traces int
	key          itemKey
	row          traceRow
	tools        tracing
	draft        *string
}

// stmts are ItemWork's statements for the item that the SQL expression
// item names (with its arguments args), reading into r.
func (r *itemWorkRead) stmts(item string, args []any, reviewer string) []postgres.Stmt {
	ofItem := `(SELECT trace_id FROM items WHERE id = ` + item + `)`
	return []postgres.Stmt{
		{Query: itemKeySelect + item, Args: args, Rows: func(row postgres.Row) error { r.item++; return r.key.scan(row) }},
		{Query: traceRowQuery + `t.id = ` + ofItem, Args: args, Rows: func(row postgres.Row) error { r.traces++; return r.row.scan(row) }},
		{Query: traceToolsQuery + `tt.trace_id = ` + ofItem + ` ORDER BY tt.position`, Args: args,
			Rows: func(row postgres.Row) error { return r.tools.scanTool(row) }},
		{Query: draftSelect + item + ` AND reviewer = ?`, Args: append(slices.Clip(args), reviewer), Rows: func(row postgres.Row) error {
			var body string
			r.draft = &body
			return row.Scan(&body, &r.w.DraftSeconds)
		}},
		{Query: notesSelect + item + ` ORDER BY id`, Args: args, Rows: func(row postgres.Row) error {
			n, err := scanNote(row)
			r.w.Notes = append(r.w.Notes, n)
			return err
		}},
		{Query: guideQuery + currentGuideWhere, Rows: func(row postgres.Row) error { r.w.HasGuide = true; return r.w.Guide.scan(row) }},
	}
}

// itemWorkOf is the ItemWork of item itemID that r read.
func (s *Store) itemWorkOf(ctx context.Context, itemID string, r *itemWorkRead) (ItemWork, error) {
	w := r.w
	if r.item == 0 {
		return w, fmt.Errorf("item %q: %w", itemID, ErrNotFound)
	}
	if r.traces == 0 {
		return w, fmt.Errorf("trace %q: %w", r.key.traceID, ErrNotFound)
	}
	t, err := s.traceOf(ctx, r.key.traceID, r.row)
	if err != nil {
		return w, err
	}
	t.Tools = append(t.Tools, r.tools.Tools...)
	if w.Item, err = s.itemOf(ctx, itemID, r.key, t.Trace); err != nil {
		return w, err
	}
	if r.draft != nil {
		w.Draft = []byte(*r.draft)
	}
	return w, nil
}

// NextWork is what the label screen loads after every submit: the
// reviewer's next open assignment (NextAssignment), the ItemWork of its
// item and, when it comes at no cost, the reviewer's progress. On
// PostgreSQL it is one round trip where NextAssignment, ItemWork and
// Progress were three: its first statement picks the item and leaves its
// id for the others (set_config, for the round trip: postgres.DB.Read).
// It carries ctx's UserCheck. ErrNotFound when the queue is empty.
type NextWork struct {
	Assignment Assignment
	Work       ItemWork
	// Progress is the reviewer's assignments by status (as Progress
	// counts them), when the reviewer has at most inlineProgress of them
	// (PostgreSQL only); nil otherwise.
	Progress map[string]int
}

// inlineProgress is the most assignments NextWork counts: counting more
// would hold up the item (the label screen draws the item, then counts).
// (A variable for tests.)
var inlineProgress = 1000

// NextWork loads the reviewer's next assignment and its item (NextWork).
func (s *Store) NextWork(ctx context.Context, reviewer, batch string) (NextWork, error) {
	var nw NextWork
	var err error
	if !s.pg {
		if nw.Assignment, err = s.NextAssignment(ctx, reviewer, batch); err != nil {
			return nw, err
		}
		nw.Work, err = s.ItemWork(ctx, nw.Assignment.ItemID, reviewer)
		return nw, err
	}
	found := false
	var r itemWorkRead
	progress, counted := map[string]int{}, true
	stmts := []postgres.Stmt{{Query: pgNextItem, Args: []any{reviewer, batch}, Rows: func(row postgres.Row) error {
		var set string
		found = true
		nw.Assignment, err = scanAssignment(alsoScan{row, &set})
		return err
	}}}
	stmts = append(stmts, r.stmts(nextItem, nil, reviewer)...)
	stmts = append(stmts, postgres.Stmt{Query: inlineProgressQuery, Args: []any{reviewer, batch, inlineProgress}, Rows: func(row postgres.Row) error {
		var k string
		var n int
		err := row.Scan(&k, &n)
		progress[k] = n
		counted = counted && k != ""
		return err
	}})
	if err := s.readChecked(ctx, stmts...); err != nil {
		return NextWork{}, err
	}
	if !found {
		return NextWork{}, fmt.Errorf("%s has nothing left to label: %w", reviewer, ErrNotFound)
	}
	if counted {
		nw.Progress = progress
	}
	r.w.Assigned = true
	nw.Work, err = s.itemWorkOf(ctx, nw.Assignment.ItemID, &r)
	return nw, err
}

// pgNextItem is pgNextAssignment leaving the item's id (nextItem) for the
// statements after it in the round trip.
const pgNextItem = `SELECT n.*, set_config('goldtrace.next_item', n.item_id, true) FROM (` + pgNextAssignment + `) n`

// nextItem is the item pgNextItem picked (NULL or ” when none: no item
// has that id).
const nextItem = `current_setting('goldtrace.next_item', true)`

// inlineProgressQuery is progressQuery when the reviewer has at most ?3
// assignments (the count stops there); otherwise one row whose status is
// ”.
const inlineProgressQuery = `WITH small AS (SELECT count(*) <= ?3 AS ok FROM (SELECT 1 FROM assignments WHERE reviewer = ?1 LIMIT ?3 + 1) s)
	SELECT '', 0 FROM small WHERE NOT ok
	UNION ALL
	SELECT status, n FROM (` + progressQuery + `) p(status, n) WHERE (SELECT ok FROM small)`
