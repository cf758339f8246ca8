package store

import (
	"context"
	"testing"
)

// TestLateLabelAfterCompare: with three reviewers on an item, one skips and
// the other two agree, so the item is compared and settled agreed, with
// gold. Bringing the skipped item back to the skipper (ReturnSkipped, which
// the label screen calls once the queue is done) must not reopen the
// compared item: from then on only a lead's send-back does. And a label
// that still comes in late (labels import of the skipped assignment, or a
// lead's release of it to another reviewer) and disputes the item must not
// leave its agreed gold answer behind: the export would ship a disputed
// item as gold.
func TestLateLabelAfterCompare(t *testing.T) { onEngines(t, testLateLabelAfterCompare) }

func testLateLabelAfterCompare(t *testing.T, st *Store) {
	ctx := context.Background()
	item := assignTwo(t, st)
	if err := st.AddUser(ctx, "dave", RoleReviewer); err != nil {
		t.Fatal(err)
	}
	if err := st.WithTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO assignments(item_id, reviewer, batch, position, updated_at) VALUES (?, 'dave', 'b1', 0, 'now')`, item)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := st.SkipItem(ctx, item, "dave", "unsure"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SubmitLabel(ctx, callLabel(item, "alice", `{"order_id":"ORD-1"}`)); err != nil {
		t.Fatal(err)
	}
	if set, err := st.SubmitLabel(ctx, callLabel(item, "bob", `{"order_id":"ORD-1"}`)); err != nil || !set.Settled || !set.Comparison.Agreed {
		t.Fatalf("bob's submit did not settle the item agreed: %+v %v", set, err)
	}
	if s := itemStatus(t, st, item); s != "agreed" {
		t.Fatalf("item is %s, want agreed", s)
	}

	// dave's queue is done: the label screen brings skipped items back.
	if got, _, err := st.ReturnSkipped(ctx, "dave", "", nil); err == nil {
		t.Errorf("ReturnSkipped reopened %s to dave after it was compared (agreed)", got)
	}
	if q, err := st.Queue(ctx, "dave", ""); err != nil || len(q) != 0 {
		t.Errorf("dave's queue after the compare: %+v %v", q, err)
	}

	// A late label that disagrees: the item is disputed, and not gold.
	if _, err := st.SubmitLabel(ctx, callLabel(item, "dave", `{"order_id":"ORD-9"}`)); err != nil {
		t.Fatal(err)
	}
	if s := itemStatus(t, st, item); s != "disputed" {
		t.Fatalf("after the late disagreeing label the item is %s", s)
	}
	gold, err := st.GoldTraces(ctx, GoldFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(gold) != 0 {
		t.Errorf("the disputed item is still read as gold: %+v", gold)
	}
}
