package store

import (
	"context"
	"errors"
	"reflect"
	"testing"
)

// NextWork is NextAssignment and ItemWork in one call, on both engines,
// with the progress of a short queue on PostgreSQL (in the same round
// trip): a draft comes first, a long queue is not counted, and an empty
// queue is not found.
func TestNextWork(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		ctx := context.Background()
		ids := reviewersBatch(t, st, 4, "alice", "bob", "carol")
		same := func(what string) NextWork {
			t.Helper()
			nw, err := st.NextWork(ctx, "alice", "")
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			a, err := st.NextAssignment(ctx, "alice", "")
			if err != nil {
				t.Fatal(err)
			}
			w, err := st.ItemWork(ctx, a.ItemID, "alice")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(nw.Assignment, a) || !reflect.DeepEqual(nw.Work, w) {
				t.Errorf("%s: NextWork %+v\nwant %+v and %+v", what, nw, a, w)
			}
			p, err := st.Progress(ctx, "alice", "")
			if err != nil {
				t.Fatal(err)
			}
			if st.pg && !reflect.DeepEqual(nw.Progress, p) || !st.pg && nw.Progress != nil {
				t.Errorf("%s: progress %v, want %v", what, nw.Progress, p)
			}
			return nw
		}
		if nw := same("first"); nw.Assignment.ItemID != ids[0] || nw.Work.Item.ID != ids[0] {
			t.Errorf("first: item %q, want %q", nw.Assignment.ItemID, ids[0])
		}
		if err := st.SaveDraft(ctx, ids[2], "alice", []byte(`{"rationale":"half"}`), 7); err != nil {
			t.Fatal(err)
		}
		if err := st.SkipItem(ctx, ids[0], "alice", "unclear"); err != nil {
			t.Fatal(err)
		}
		nw := same("a draft")
		if nw.Work.Item.ID != ids[2] || string(nw.Work.Draft) != `{"rationale":"half"}` || nw.Work.DraftSeconds != 7 {
			t.Errorf("a draft: item %q draft %q (%d s), want %q's", nw.Work.Item.ID, nw.Work.Draft, nw.Work.DraftSeconds, ids[2])
		}
		// A queue longer than inlineProgress is counted apart.
		defer func(n int) { inlineProgress = n }(inlineProgress)
		inlineProgress = 3
		if nw, err := st.NextWork(ctx, "alice", ""); err != nil || nw.Progress != nil || nw.Work.Item.ID != ids[2] {
			t.Errorf("a long queue: item %q progress %v, %v; want %q, none", nw.Work.Item.ID, nw.Progress, err, ids[2])
		}
		inlineProgress = len(ids)
		same("a queue as long as inlineProgress")
		for _, id := range ids[1:] {
			if err := st.SkipItem(ctx, id, "alice", "unclear"); err != nil {
				t.Fatal(err)
			}
		}
		if nw, err := st.NextWork(ctx, "alice", ""); !errors.Is(err, ErrNotFound) || nw.Assignment.ItemID != "" {
			t.Errorf("an empty queue: %+v, %v; want not found", nw.Assignment, err)
		}
	})
}
