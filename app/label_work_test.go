package app

import (
	"context"
	"errors"
	"testing"

	"github.com/goldtrace/goldtrace/store"
)

// TestLabelWorkIsTheActorsOwn: LabelWork loads the next item of the
// actor's queue with their draft (their progress once the queue is empty,
// or with the item on PostgreSQL), and anything of another reviewer's
// queue reads as not found.
func TestLabelWorkIsTheActorsOwn(t *testing.T) {
	onEngines(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		a, _, item := projectOn(t, engine)
		bob := a.As(actor(t, a, "bob"))

		w, err := bob.LabelWork(ctx, "bob", "", "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if w.Empty || w.Item.ID != item || w.Draft != nil || w.Guide.ID == "" {
			t.Fatalf("bob's next item: %+v", w)
		}
		if counted := engine == "postgres"; counted && (len(w.Progress) != 1 || w.Progress["pending"] != 1) || !counted && w.Progress != nil {
			t.Errorf("bob's progress with his next item: %v", w.Progress)
		}
		if err := bob.SaveDraft(ctx, item, "bob", []byte(`{"rationale":"x"}`), 7); err != nil {
			t.Fatal(err)
		}
		w, err = bob.LabelWork(ctx, "bob", "", item, nil)
		if err != nil || string(w.Draft) != `{"rationale":"x"}` || w.DraftSeconds != 7 {
			t.Fatalf("bob's item with a draft: %+v %v", w, err)
		}

		if _, err := bob.LabelWork(ctx, "alice", "", "", nil); !errors.Is(err, ErrNotFound) {
			t.Errorf("alice's queue as bob: %v", err)
		}
		dave := a.As(actor(t, a, "dave"))
		if _, err := dave.LabelWork(ctx, "dave", "", item, nil); !errors.Is(err, ErrNotFound) {
			t.Errorf("an item not assigned to dave: %v", err)
		}
		// A lead may open any item (as the adjudication screen does).
		if err := a.st.AddUser(ctx, "erin", store.RoleLead); err != nil {
			t.Fatal(err)
		}
		if w, err := a.As(actor(t, a, "erin")).LabelWork(ctx, "erin", "", item, nil); err != nil || w.Item.ID != item || w.Draft != nil {
			t.Errorf("a lead opening bob's item: %q, draft %q, %v", w.Item.ID, w.Draft, err)
		}
		if _, err := a.As(actor(t, a, "erin")).LabelWork(ctx, "erin", "", "it_0000000000000000", nil); !errors.Is(err, ErrNotFound) {
			t.Errorf("a lead opening an item that does not exist: %v", err)
		}
		if w, err := dave.LabelWork(ctx, "dave", "", "", nil); err != nil || !w.Empty || w.Progress == nil || len(w.Progress) != 0 {
			t.Errorf("dave's empty queue: %+v %v", w, err)
		}
		if _, err := a.As(Actor{Source: SourceLocal}).LabelWork(ctx, "", "", "", nil); err == nil {
			t.Error("no identity opened a label queue")
		}
	})
}
