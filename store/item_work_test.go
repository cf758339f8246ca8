package store

import (
	"context"
	"errors"
	"reflect"
	"testing"
)

// ItemWork loads what Item, Draft, Notes and CurrentGuide load, on both
// engines (on PostgreSQL in one round trip): with and without a draft,
// notes and a guide, assigned to the reviewer or not; an item that does
// not exist is not found.
func TestItemWorkIsItsParts(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		ctx := context.Background()
		ids := reviewersBatch(t, st, 2, "alice", "bob", "carol")
		check := func(item, reviewer string) {
			t.Helper()
			w, err := st.ItemWork(ctx, item, reviewer)
			if err != nil {
				t.Fatal(err)
			}
			var want ItemWork
			if want.Item, err = st.Item(ctx, item); err != nil {
				t.Fatal(err)
			}
			if want.Draft, want.DraftSeconds, err = st.Draft(ctx, item, reviewer); err != nil && !errors.Is(err, ErrNotFound) {
				t.Fatal(err)
			}
			if want.Notes, err = st.Notes(ctx, item); err != nil {
				t.Fatal(err)
			}
			want.Guide, err = st.CurrentGuide(ctx)
			want.HasGuide = err == nil
			_, err = st.Assignment(ctx, item, reviewer)
			want.Assigned = err == nil
			if !reflect.DeepEqual(w, want) {
				t.Errorf("ItemWork(%s, %s) = %+v\nwant %+v", item, reviewer, w, want)
			}
		}
		check(ids[0], "alice")
		if err := st.SaveDraft(ctx, ids[0], "alice", []byte(`{"rationale":"half"}`), 7); err != nil {
			t.Fatal(err)
		}
		if _, err := st.EnsureGuide(ctx, "g1", "# Guide\n", "lead"); err != nil {
			t.Fatal(err)
		}
		if err := st.AddUser(ctx, "lead", RoleLead); err != nil {
			t.Fatal(err)
		}
		if err := st.ProposeGuideChange(ctx, ids[0], "lead", "say more"); err != nil {
			t.Fatal(err)
		}
		check(ids[0], "alice")
		check(ids[0], "bob")
		check(ids[1], "alice")
		check(ids[1], "dave")
		if _, err := st.ItemWork(ctx, "it_missing", "alice"); !errors.Is(err, ErrNotFound) {
			t.Errorf("a missing item: %v, want ErrNotFound", err)
		}
	})
}
