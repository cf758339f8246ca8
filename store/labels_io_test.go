package store

import (
	"context"
	"errors"
	"testing"

	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/trace"
)

func TestNextAssignmentDraftsFirstThenBatchOrder(t *testing.T) {
	onEngines(t, testNextAssignmentDraftsFirstThenBatchOrder)
}

func testNextAssignmentDraftsFirstThenBatchOrder(t *testing.T, st *Store) {
	ctx := context.Background()
	if err := st.AddUser(ctx, "alice", RoleReviewer); err != nil {
		t.Fatal(err)
	}
	var items []string
	err := st.WithTx(ctx, func(tx *Tx) error {
		for _, b := range []string{"a", "b"} {
			if _, err := tx.ExecContext(ctx, `INSERT INTO batches(name, seed, per_item, created_at) VALUES (?, 1, 1, 'now')`, b); err != nil {
				return err
			}
		}
		// Items 0,1 in batch b (positions 0,1); item 2 in batch a (position 5).
		for i, at := range []struct {
			batch string
			pos   int
		}{{"b", 0}, {"b", 1}, {"a", 5}} {
			tr := sampleTrace("tr_" + string(rune('0'+i)))
			tr.Messages[0].Content += tr.ID // distinct content, or it is a duplicate
			if _, err := st.InsertTrace(ctx, tx, tr, "t"); err != nil {
				return err
			}
			id := trace.Items(tr)[0].ID
			items = append(items, id)
			if _, err := tx.ExecContext(ctx, `INSERT INTO assignments(item_id, reviewer, batch, position, updated_at) VALUES (?, 'alice', ?, ?, 'now')`, id, at.batch, at.pos); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	next := func(batch string) string {
		a, err := st.NextAssignment(ctx, "alice", batch)
		if errors.Is(err, ErrNotFound) {
			return "none"
		} else if err != nil {
			t.Fatal(err)
		}
		return a.ItemID
	}
	if got := next(""); got != items[2] {
		t.Errorf("first: %s, want batch a's item %s", got, items[2])
	}
	if got := next("b"); got != items[0] {
		t.Errorf("batch b: %s", got)
	}
	if err := st.SaveDraft(ctx, items[1], "alice", []byte(`{}`), 1); err != nil {
		t.Fatal(err)
	}
	if got := next(""); got != items[1] {
		t.Errorf("a draft comes first: %s", got)
	}
	for _, id := range items {
		if err := st.SkipItem(ctx, id, "alice", "test"); err != nil {
			t.Fatal(err)
		}
	}
	if got := next(""); got != "none" {
		t.Errorf("empty queue: %s", got)
	}
}

func TestSubmitLabelsIsAllOrNothing(t *testing.T) { onEngines(t, testSubmitLabelsIsAllOrNothing) }

func testSubmitLabelsIsAllOrNothing(t *testing.T, st *Store) {
	ctx := context.Background()
	item := assignTwo(t, st)
	labels := []review.Label{
		callLabel(item, "alice", `{"order_id":"ORD-1"}`),
		callLabel(item, "bob", `{"order_id":"ORD-1"}`),
		callLabel(item, "alice", `{"order_id":"ORD-2"}`), // a second label by alice
	}
	_, err := st.SubmitLabels(ctx, labels)
	var le *LabelError
	if !errors.As(err, &le) || le.Index != 2 || !errors.Is(err, ErrConflict) {
		t.Fatalf("want a conflict at index 2, got %v", err)
	}
	if _, err := st.Label(ctx, item, "alice"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a failed batch left a label: %v", err)
	}
	sets, err := st.SubmitLabels(ctx, labels[:2])
	if err != nil || sets[0].Settled || !sets[1].Settled || !sets[1].Comparison.Agreed {
		t.Fatalf("settlements %+v %v", sets, err)
	}
	var n int
	err = st.Labels(ctx, LabelFilter{Reviewer: "bob", Batch: "b1"}, func(l review.Label) error { n++; return nil })
	if err != nil || n != 1 {
		t.Errorf("labels by bob: %d %v", n, err)
	}
	targets, err := st.LabelTargets(ctx, []string{item, "it_missing", item})
	if err != nil {
		t.Fatal(err)
	}
	if got := targets["it_missing"]; got.Found || len(targets) != 2 {
		t.Errorf("a missing item: %+v in %d targets", got, len(targets))
	}
	got := targets[item]
	if !got.Found || got.Status != "agreed" || got.Assignments["alice"] != AssignSubmitted || got.Assignments["bob"] != AssignSubmitted ||
		len(got.Assignments) != 2 || len(got.Tools) == 0 || got.Tools[0].Name != "get_order_status" {
		t.Errorf("the labeled item: %+v", got)
	}
}
