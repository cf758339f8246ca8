package store

import (
	"context"
	"errors"
	"fmt"

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
}

// ItemWork loads the item itemID with reviewer's draft of it, its notes
// and the guide in force: Item, Draft, Notes and CurrentGuide in one call,
// which on PostgreSQL is one round trip (their statements pipelined)
// instead of six; the label screen loads one after every submit.
func (s *Store) ItemWork(ctx context.Context, itemID, reviewer string) (ItemWork, error) {
	if s.pg {
		return s.itemWorkPiped(ctx, itemID, reviewer)
	}
	var w ItemWork
	var err error
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
	var w ItemWork
	var item, traces int
	var key itemKey
	var row traceRow
	var tools tracing
	var draft *string
	ofItem := `(SELECT trace_id FROM items WHERE id = ?)`
	err := s.readChecked(ctx,
		postgres.Stmt{Query: itemKeyQuery, Args: []any{itemID}, Rows: func(r postgres.Row) error { item++; return key.scan(r) }},
		postgres.Stmt{Query: traceRowQuery + `t.id = ` + ofItem, Args: []any{itemID}, Rows: func(r postgres.Row) error { traces++; return row.scan(r) }},
		postgres.Stmt{Query: traceToolsQuery + `tt.trace_id = ` + ofItem + ` ORDER BY tt.position`, Args: []any{itemID},
			Rows: func(r postgres.Row) error { return tools.scanTool(r) }},
		postgres.Stmt{Query: draftQuery, Args: []any{itemID, reviewer}, Rows: func(r postgres.Row) error {
			var body string
			draft = &body
			return r.Scan(&body, &w.DraftSeconds)
		}},
		postgres.Stmt{Query: notesQuery, Args: []any{itemID}, Rows: func(r postgres.Row) error {
			n, err := scanNote(r)
			w.Notes = append(w.Notes, n)
			return err
		}},
		postgres.Stmt{Query: guideQuery + currentGuideWhere, Rows: func(r postgres.Row) error { w.HasGuide = true; return w.Guide.scan(r) }})
	if err != nil {
		return w, err
	}
	if item == 0 {
		return w, fmt.Errorf("item %q: %w", itemID, ErrNotFound)
	}
	if traces == 0 {
		return w, fmt.Errorf("trace %q: %w", key.traceID, ErrNotFound)
	}
	t, err := s.traceOf(ctx, key.traceID, row)
	if err != nil {
		return w, err
	}
	t.Tools = append(t.Tools, tools.Tools...)
	if w.Item, err = s.itemOf(ctx, itemID, key, t.Trace); err != nil {
		return w, err
	}
	if draft != nil {
		w.Draft = []byte(*draft)
	}
	return w, nil
}
