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
	fillTraces(t, st, 4)
	for _, r := range []string{"alice", "bob"} {
		if err := st.AddUser(ctx, r, RoleReviewer); err != nil {
			t.Fatal(err)
		}
	}
	ids := allItems(t, st)
	if err := st.CreateBatch(ctx, newBatchOf("b1", ids, "alice", "bob")); err != nil {
		t.Fatal(err)
	}
	// Groups start at one label: alice's label of the first item is a
	// group of its own, bob's is in the next one.
	labels := []review.Label{noCallLabel(ids[0], "alice"), noCallLabel(ids[0], "bob"), noCallLabel(ids[1], "alice")}
	out, undo, err := st.writeLabels(ctx, allLabels(labels), labelsPace)
	if err != nil {
		t.Fatal(err)
	}
	for j, want := range []string{"sampled", "labeling", "sampled"} {
		if undo[j].itemStatus != want {
			t.Errorf("label %d: taken back from item status %q, want %q", j, undo[j].itemStatus, want)
		}
	}
	if !out[1].Settled {
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
