package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/review"
)

func noCallLabel(item, reviewer string) review.Label {
	return review.Label{Item: item, Reviewer: reviewer, Decision: review.DecisionNoCall, Rationale: "nothing to look up",
		SubmittedAt: time.Date(2026, 5, 2, 9, 0, 0, 0, time.UTC)}
}

func tableCounts(t *testing.T, st *Store) [5]int {
	t.Helper()
	var c [5]int
	err := st.r.QueryRow(`SELECT (SELECT count(*) FROM labels), (SELECT count(*) FROM gold), (SELECT count(*) FROM disputes),
		(SELECT count(*) FROM assignments WHERE status = 'submitted'), (SELECT count(*) FROM items WHERE status NOT IN ('new', 'sampled'))`).
		Scan(&c[0], &c[1], &c[2], &c[3], &c[4])
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Labels written in many short transactions are all undone when a later
// one fails: labels, gold, disputes, assignment and item states, and the
// drafts the submits removed come back as they were.
func TestSubmitLabelsFailingMidwayUndoesEverything(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	fillTraces(t, st, 20)
	for _, r := range []string{"alice", "bob"} {
		if err := st.AddUser(ctx, r, RoleReviewer); err != nil {
			t.Fatal(err)
		}
	}
	ids := allItems(t, st)
	if err := st.CreateBatch(ctx, newBatchOf("b1", ids, "alice", "bob"), nil); err != nil {
		t.Fatal(err)
	}
	if err := st.SaveDraft(ctx, ids[0], "alice", []byte(`{"rationale":"half"}`), 7); err != nil {
		t.Fatal(err)
	}
	before := tableCounts(t, st)
	var labels []review.Label
	for i, id := range ids {
		labels = append(labels, noCallLabel(id, "alice"))
		l := noCallLabel(id, "bob")
		if i%2 == 1 {
			l.Decision, l.Calls = review.DecisionCall, []review.LabelCall{{Tool: "get_order_status", Args: []byte(`{"order_id":"ORD-1"}`)}}
		}
		labels = append(labels, l)
	}
	// The same assignment twice: the check before writing passes both, the
	// second write fails.
	labels = append(labels, noCallLabel(ids[0], "alice"))
	tiny := bulkPace{chunkTime: time.Nanosecond, yield: time.Millisecond}
	_, err := st.submitLabels(ctx, labels, tiny)
	var le *LabelError
	if !errors.As(err, &le) || le.Index != len(labels)-1 || !errors.Is(err, ErrConflict) {
		t.Fatalf("err = %v", err)
	}
	if after := tableCounts(t, st); after != before {
		t.Errorf("after the undo: labels, gold, disputes, submitted, settled = %v, before %v", after, before)
	}
	body, secs, err := st.Draft(ctx, ids[0], "alice")
	if err != nil || string(body) != `{"rationale":"half"}` || secs != 7 {
		t.Errorf("draft after the undo: %s %d %v", body, secs, err)
	}
	if a, _ := st.Assignment(ctx, ids[0], "alice"); a.Status != AssignDraft {
		t.Errorf("assignment after the undo: %+v", a)
	}
	// Without the duplicate, everything is written and settles.
	sets, err := st.submitLabels(ctx, labels[:len(labels)-1], tiny)
	if err != nil {
		t.Fatal(err)
	}
	settled := 0
	for _, s := range sets {
		if s.Settled {
			settled++
		}
	}
	if c := tableCounts(t, st); c[0] != 2*len(ids) || settled != len(ids) || c[1]+c[2] != len(ids) {
		t.Errorf("after the import: %v, %d settled", c, settled)
	}
}
