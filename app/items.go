package app

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/goldtrace/goldtrace/store"
)

// ItemsQuery is what goldtrace items asks for.
type ItemsQuery struct {
	Batch string
	// State: pending (not settled yet), disputed, agreed, adjudicated or
	// gold (agreed or adjudicated) for a lead; for a reviewer their own
	// assignment's pending, draft, submitted or skipped. "": all.
	State string
	// Tool is the production model's first tool there (a lead's filter:
	// a reviewer labels blind to it).
	Tool string
	// Reviewer: that reviewer's queue (a lead may ask for anyone's; a
	// reviewer gets only their own).
	Reviewer string
	Limit    int
}

// LeadItemStates and ReviewerItemStates are the --state values items takes.
var (
	LeadItemStates     = []string{"pending", "disputed", "agreed", "adjudicated", "gold"}
	ReviewerItemStates = []string{store.AssignPending, store.AssignDraft, store.AssignSubmitted, store.AssignSkipped}
)

// itemStatuses are the item statuses behind a lead's --state.
var itemStatuses = map[string][]string{
	"pending":     {"sampled", "labeling"},
	"disputed":    {"disputed"},
	"agreed":      {"agreed"},
	"adjudicated": {"adjudicated"},
	"gold":        {"agreed", "adjudicated"},
}

// Items lists item ids with what is needed to decide where to look. A lead
// sees every item (or one reviewer's queue) with its state and the
// production model's call, and the read is audited. A reviewer sees only
// their own queue and their own progress on it: not the items' agreed or
// disputed state, not the observed call (they label blind to it), and
// another reviewer's queue reads as empty.
func (a *App) Items(ctx context.Context, actor Actor, q ItemsQuery) ([]store.ItemRow, error) {
	actor, err := a.current(ctx, actor)
	if err != nil {
		return nil, err
	}
	object := itemsObject(q)
	f := store.ItemFilter{Batch: q.Batch, Tool: q.Tool, Reviewer: q.Reviewer, Limit: q.Limit}
	if Authorize(actor, ActStatusDetails) == nil {
		statuses, ok := itemStatuses[q.State]
		switch {
		case q.State == "":
		case q.Reviewer != "" && slices.Contains(ReviewerItemStates, q.State):
			f.AssignStatuses = []string{q.State} // that reviewer's own progress
		case ok:
			f.Statuses = statuses
		default:
			return nil, fmt.Errorf("--state must be one of %s, not %q", strings.Join(LeadItemStates, ", "), q.State)
		}
		rows, err := a.st.ItemList(ctx, f)
		if err != nil {
			return nil, err
		}
		return rows, a.audit(ctx, actor, ActStatusDetails, object)
	}
	if _, err := a.authorize(ctx, actor, ActQueueRead, object); err != nil {
		return nil, err
	}
	if q.Tool != "" {
		return nil, fmt.Errorf("--tool filters by the production model's call, which reviewers label blind to: it is for leads")
	}
	if q.Reviewer != "" && q.Reviewer != actor.Name {
		return nil, nil // another reviewer's queue: as if it were empty
	}
	f.Reviewer = actor.Name
	switch {
	case q.State == "":
	case slices.Contains(ReviewerItemStates, q.State):
		f.AssignStatuses = []string{q.State}
	default:
		return nil, fmt.Errorf("--state for your queue is one of %s (whether items agreed is for leads), not %q",
			strings.Join(ReviewerItemStates, ", "), q.State)
	}
	rows, err := a.st.ItemList(ctx, f)
	for i := range rows {
		// Agreed or disputed would tell how another reviewer answered;
		// the observed call is what the reviewer may reveal on the screen.
		rows[i].Status, rows[i].ObservedTool = "", ""
	}
	return rows, err
}

func itemsObject(q ItemsQuery) string {
	object := "items"
	for _, kv := range [][2]string{{"batch", q.Batch}, {"state", q.State}, {"tool", q.Tool}, {"reviewer", q.Reviewer}} {
		if kv[1] != "" {
			object += " " + kv[0] + " " + kv[1]
		}
	}
	return object
}
