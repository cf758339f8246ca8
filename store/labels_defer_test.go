package store

import (
	"context"
	"testing"

	"github.com/goldtrace/goldtrace/review"
)

// An item's status changes are held to the end of the transaction on
// SQLite; a later group of the same transaction reads the status an
// earlier group left (what taking its label back starts from), and the
// statuses are written before the commit.
func TestHeldStatusesReadAsLeftAndWritten(t *testing.T) {
	ctx := context.Background()
	st := openEngine(t, "sqlite")
	ids := reviewersBatch(t, st, 4, "alice", "bob")
	// Groups start at one label: alice's label of the first item is a
	// group of its own (the next label is another item's), bob's is in
	// the next one.
	labels := []review.Label{noCallLabel(ids[0], "alice"), noCallLabel(ids[1], "alice"), noCallLabel(ids[0], "bob")}
	out, undo, err := st.writeLabels(ctx, allLabels(labels), labelsPace)
	if err != nil {
		t.Fatal(err)
	}
	for j, want := range []string{"sampled", "sampled", "labeling"} {
		if undo[j].itemStatus != want {
			t.Errorf("label %d: taken back from item status %q, want %q", j, undo[j].itemStatus, want)
		}
	}
	if !out[2].Settled {
		t.Errorf("bob's label did not settle %s", ids[0])
	}
	for id, want := range map[string]string{ids[0]: "agreed", ids[1]: "labeling", ids[2]: "sampled"} {
		var got string
		if err := st.r.QueryRowContext(ctx, `SELECT status FROM items WHERE id = ?`, id).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("item %s is %s, want %s", id, got, want)
		}
	}
}

// An item agreed and then disputed (a skipped reviewer's label arrives
// after the others agreed) has no gold answer and one dispute, whether
// its agreement was held in the same transaction or committed before.
func TestGoldAnswerOfAnItemDisputedLaterIsRemoved(t *testing.T) {
	ctx := context.Background()
	st := openEngine(t, "sqlite")
	ids := reviewersBatch(t, st, 4, "alice", "bob", "carol")
	for _, id := range ids[:2] {
		if err := st.SkipItem(ctx, id, "carol", "unsure"); err != nil {
			t.Fatal(err)
		}
	}
	disagree := func(id string) review.Label {
		l := noCallLabel(id, "carol")
		l.Decision, l.Calls = review.DecisionCall, []review.LabelCall{{Tool: "get_order_status", Args: []byte(`{"order_id":"ORD-1"}`)}}
		return l
	}
	// ids[0]: agreed and disputed in one call, by two groups (groups
	// start at one label and double); ids[1]: agreed, committed, then
	// disputed by a second call.
	if _, err := st.SubmitLabels(ctx, []review.Label{noCallLabel(ids[0], "alice"), noCallLabel(ids[0], "bob"), noCallLabel(ids[1], "alice"),
		disagree(ids[0]), noCallLabel(ids[1], "bob")}); err != nil {
		t.Fatal(err)
	}
	var golds int
	if err := st.r.QueryRowContext(ctx, `SELECT count(*) FROM gold WHERE item_id = ?`, ids[1]).Scan(&golds); err != nil || golds != 1 {
		t.Fatalf("%s: %d gold answers after agreeing (%v), want 1", ids[1], golds, err)
	}
	if _, err := st.SubmitLabels(ctx, []review.Label{disagree(ids[1])}); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids[:2] {
		var status string
		var golds, disputes int
		if err := st.r.QueryRowContext(ctx, `SELECT status, (SELECT count(*) FROM gold WHERE item_id = id), (SELECT count(*) FROM disputes WHERE item_id = id)
			FROM items WHERE id = ?`, id).Scan(&status, &golds, &disputes); err != nil {
			t.Fatal(err)
		}
		if status != "disputed" || golds != 0 || disputes != 1 {
			t.Errorf("%s: %s with %d gold answers and %d disputes, want disputed with none and one", id, status, golds, disputes)
		}
	}
}
