package store

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/trace"
)

// assignTwo stores sampleTrace and assigns its first item to alice and bob.
func assignTwo(t *testing.T, st *Store) string {
	t.Helper()
	ctx := context.Background()
	tr := sampleTrace("tr_1")
	itemID := trace.Items(tr)[0].ID
	for _, u := range []string{"alice", "bob"} {
		if err := st.AddUser(ctx, u, RoleReviewer); err != nil {
			t.Fatal(err)
		}
	}
	err := st.WithTx(ctx, func(tx *Tx) error {
		if _, err := st.InsertTrace(ctx, tx, tr, "test"); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO batches(name, seed, per_item, created_at) VALUES ('b1', 1, 2, 'now')`); err != nil {
			return err
		}
		for _, u := range []string{"alice", "bob"} {
			if _, err := tx.ExecContext(ctx, `INSERT INTO assignments(item_id, reviewer, batch, position, updated_at) VALUES (?, ?, 'b1', 0, 'now')`, itemID, u); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return itemID
}

func callLabel(item, reviewer, args string) review.Label {
	return review.Label{Item: item, Reviewer: reviewer, Decision: review.DecisionCall,
		Calls: []review.LabelCall{{Tool: "get_order_status", Args: json.RawMessage(args)}}, Rationale: "status lookup"}
}

func TestSubmitSettlesAgreedWithGold(t *testing.T) { onEngines(t, testSubmitSettlesAgreedWithGold) }

func testSubmitSettlesAgreedWithGold(t *testing.T, st *Store) {
	ctx := context.Background()
	item := assignTwo(t, st)
	if err := st.SaveDraft(ctx, item, "alice", []byte(`{"x":1}`), 5); err != nil {
		t.Fatal(err)
	}
	set, err := st.SubmitLabel(ctx, callLabel(item, "alice", `{"order_id":"ORD-1"}`))
	if err != nil || set.Settled {
		t.Fatalf("first submit: %+v %v", set, err)
	}
	if _, _, err := st.Draft(ctx, item, "alice"); !errors.Is(err, ErrNotFound) {
		t.Errorf("draft survives submit: %v", err)
	}
	if _, err := st.SubmitLabel(ctx, callLabel(item, "alice", `{}`)); !errors.Is(err, ErrConflict) {
		t.Errorf("second submit by the same reviewer: %v", err)
	}
	set, err = st.SubmitLabel(ctx, callLabel(item, "bob", `{ "order_id" : "ORD-1" }`))
	if err != nil || !set.Settled || !set.Comparison.Agreed {
		t.Fatalf("second reviewer: %+v %v", set, err)
	}
	var status, gold string
	if err := st.Reader().QueryRowContext(ctx, `SELECT i.status, g.calls FROM items i JOIN gold g ON g.item_id = i.id WHERE i.id = ?`, item).Scan(&status, &gold); err != nil {
		t.Fatal(err)
	}
	if status != "agreed" || gold != `[{"tool":"get_order_status","args":{"order_id":"ORD-1"}}]` {
		t.Errorf("status %s gold %s", status, gold)
	}
}

func TestSubmitDisputeAndReopen(t *testing.T) { onEngines(t, testSubmitDisputeAndReopen) }

func testSubmitDisputeAndReopen(t *testing.T, st *Store) {
	ctx := context.Background()
	item := assignTwo(t, st)
	if _, err := st.SubmitLabel(ctx, callLabel(item, "alice", `{"order_id":"ORD-1"}`)); err != nil {
		t.Fatal(err)
	}
	// Before the other reviewer submits, alice may take hers back.
	l, err := st.Reopen(ctx, item, "alice", func(l review.Label) ([]byte, error) { return json.Marshal(l) })
	if err != nil || string(l.Calls[0].Args) != `{"order_id":"ORD-1"}` {
		t.Fatalf("reopen: %+v %v", l, err)
	}
	body, _, err := st.Draft(ctx, item, "alice")
	if err != nil || len(body) == 0 {
		t.Fatalf("reopened label is not a draft: %v", err)
	}
	if _, err := st.SubmitLabel(ctx, callLabel(item, "alice", `{"order_id":"ORD-1"}`)); err != nil {
		t.Fatal(err)
	}
	set, err := st.SubmitLabel(ctx, callLabel(item, "bob", `{"order_id":"ORD-2"}`))
	if err != nil || !set.Settled || set.Comparison.Agreed || len(set.Comparison.Kinds) != 1 || set.Comparison.Kinds[0] != review.KindArgs {
		t.Fatalf("dispute: %+v %v", set, err)
	}
	last, err := st.LastSubmitted(ctx, "bob", "")
	if err != nil || last != item {
		t.Fatalf("last submitted: %q %v", last, err)
	}
	// Compared: neither reviewer can reopen ("peek, reopen, match").
	for _, who := range []string{"alice", "bob"} {
		if _, err := st.Reopen(ctx, item, who, func(l review.Label) ([]byte, error) { return json.Marshal(l) }); !errors.Is(err, ErrConflict) {
			t.Errorf("%s reopened a compared item: %v", who, err)
		}
	}
	var status string
	var disputes int
	st.Reader().QueryRowContext(ctx, `SELECT status, (SELECT count(*) FROM disputes) FROM items WHERE id = ?`, item).Scan(&status, &disputes)
	if status != "disputed" || disputes != 1 {
		t.Errorf("after refused reopens: status %s, disputes %d", status, disputes)
	}
}

func TestSubmitRequiresAssignment(t *testing.T) { onEngines(t, testSubmitRequiresAssignment) }

func testSubmitRequiresAssignment(t *testing.T, st *Store) {
	item := assignTwo(t, st)
	if _, err := st.SubmitLabel(context.Background(), callLabel(item, "mallory", `{}`)); !errors.Is(err, ErrNotFound) {
		t.Errorf("unassigned reviewer: %v", err)
	}
}
