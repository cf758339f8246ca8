package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
)

// twoHandles opens a second store on st's database: another pool, as
// another process (or serve replica) has.
func twoHandles(t *testing.T, st *Store) *Store {
	t.Helper()
	other, err := Open(context.Background(), st.Path())
	if err != nil {
		t.Fatal(err)
	}
	other.Now = st.Now
	t.Cleanup(func() { other.Close() })
	return other
}

// The last two labels of an item submitted at the same moment through two
// store handles (two pools, as two processes or replicas): every item
// settles exactly once, as agreed gold or as one dispute, never both and
// never neither, and exactly one of the two submits reports the
// settlement. Carol labels first, so the item is already labeling and
// neither submit changes its row: only the writers' lock orders them.
func TestLastTwoLabelsSettleExactlyOnce(t *testing.T) {
	onEngines(t, testLastTwoLabelsSettleExactlyOnce)
}

func testLastTwoLabelsSettleExactlyOnce(t *testing.T, st *Store) {
	ctx := context.Background()
	ids := reviewersBatch(t, st, 24, "alice", "bob", "carol")
	other := twoHandles(t, st)
	for _, id := range ids {
		if _, err := st.SubmitLabel(ctx, callLabel(id, "carol", `{"order_id":"ORD-1"}`)); err != nil {
			t.Fatal(err)
		}
	}
	sets := make([][2]Settlement, len(ids))
	errs := make([][2]error, len(ids))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, id := range ids {
		bobArgs := `{"order_id":"ORD-1"}`
		if i%2 == 1 {
			bobArgs = `{"order_id":"ORD-2"}` // disagrees
		}
		for k, h := range []struct {
			st       *Store
			reviewer string
			args     string
		}{{st, "alice", `{"order_id":"ORD-1"}`}, {other, "bob", bobArgs}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				sets[i][k], errs[i][k] = h.st.SubmitLabel(ctx, callLabel(id, h.reviewer, h.args))
			}()
		}
	}
	close(start)
	wg.Wait()
	for i, id := range ids {
		for k := range 2 {
			if errs[i][k] != nil {
				t.Fatalf("item %s, submit %d: %v", id, k, errs[i][k])
			}
		}
		if n := boolInt(sets[i][0].Settled) + boolInt(sets[i][1].Settled); n != 1 {
			t.Errorf("item %s: %d submits report a settlement, want 1", id, n)
		}
		var status string
		var gold, disputes int
		if err := st.Reader().QueryRowContext(ctx, `SELECT status, (SELECT count(*) FROM gold WHERE item_id = ?1),
			(SELECT count(*) FROM disputes WHERE item_id = ?1) FROM items WHERE id = ?1`, id).Scan(&status, &gold, &disputes); err != nil {
			t.Fatal(err)
		}
		want := "agreed, 1 gold, 0 disputes"
		if i%2 == 1 {
			want = "disputed, 0 gold, 1 disputes"
		}
		if got := fmt.Sprintf("%s, %d gold, %d disputes", status, gold, disputes); got != want {
			t.Errorf("item %s: %s, want %s", id, got, want)
		}
	}
}

// A reviewer's draft saved through one handle while the same reviewer's
// submit goes through another: the draft either lands first (and the
// submit removes it) or is refused (the assignment is submitted); a
// submitted assignment never keeps a draft.
func TestDraftBesideSubmitOnTwoHandles(t *testing.T) { onEngines(t, testDraftBesideSubmitOnTwoHandles) }

func testDraftBesideSubmitOnTwoHandles(t *testing.T, st *Store) {
	ctx := context.Background()
	ids := reviewersBatch(t, st, 16, "alice", "bob", "carol")
	other := twoHandles(t, st)
	draftErrs := make([]error, len(ids))
	submitErrs := make([]error, len(ids))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			draftErrs[i] = st.SaveDraft(ctx, id, "bob", []byte(`{"typed":"ORD-"}`), 3)
		}()
		go func() {
			defer wg.Done()
			<-start
			_, submitErrs[i] = other.SubmitLabel(ctx, callLabel(id, "bob", `{"order_id":"ORD-1"}`))
		}()
	}
	close(start)
	wg.Wait()
	for i, id := range ids {
		if submitErrs[i] != nil {
			t.Fatalf("item %s: submit: %v", id, submitErrs[i])
		}
		if err := draftErrs[i]; err != nil && !errors.Is(err, ErrConflict) {
			t.Fatalf("item %s: draft: %v", id, err)
		}
		a, err := st.Assignment(ctx, id, "bob")
		if err != nil {
			t.Fatal(err)
		}
		_, _, derr := st.Draft(ctx, id, "bob")
		if a.Status != AssignSubmitted || !errors.Is(derr, ErrNotFound) {
			t.Errorf("item %s: assignment %s, draft lookup %v; want submitted and no draft", id, a.Status, derr)
		}
	}
	// The others' drafts are untouched and theirs alone.
	if err := other.SaveDraft(ctx, ids[0], "alice", []byte(`{"a":1}`), 1); err != nil {
		t.Fatal(err)
	}
	if body, _, err := st.Draft(ctx, ids[0], "alice"); err != nil || string(body) != `{"a":1}` {
		t.Errorf("alice's draft through the other handle: %q %v", body, err)
	}
}

// Reviewers' writes to many items through two handles while writes that
// run alone (a lead's notes) and audit entries on their own go on: on
// PostgreSQL the first run beside each other under their items' locks and
// the others take the whole writers' lock; every write succeeds (no
// deadlock, no busy error surfaces) and every item settles once.
func TestItemWritesBesideWholeLockWrites(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		ctx := context.Background()
		ids := reviewersBatch(t, st, 12, "alice", "bob", "carol")
		if err := st.AddUser(ctx, "lee", RoleLead); err != nil {
			t.Fatal(err)
		}
		other := twoHandles(t, st)
		start := make(chan struct{})
		var wg sync.WaitGroup
		errs := make(chan error, 8*len(ids))
		run := func(f func() error) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if err := f(); err != nil {
					errs <- err
				}
			}()
		}
		for i, id := range ids {
			h := []*Store{st, other}[i%2]
			run(func() error { return h.SaveDraft(ctx, id, "carol", []byte(`{"typed":"ORD"}`), 2) })
			for _, r := range []string{"alice", "bob", "carol"} {
				run(func() error { _, err := h.SubmitLabel(ctx, callLabel(id, r, `{"order_id":"ORD-1"}`)); return err })
			}
			run(func() error { return h.ProposeGuideChange(ctx, id, "lee", "say which order") })
			run(func() error {
				return h.AppendAudit(ctx, AuditEntry{Actor: "lee", Role: RoleLead, Source: "local", Action: "status", Object: id})
			})
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			if !errors.Is(err, ErrConflict) { // carol's draft after her submit
				t.Fatal(err)
			}
		}
		var agreed, gold int
		if err := st.Reader().QueryRowContext(ctx, `SELECT (SELECT count(*) FROM items WHERE status = 'agreed'),
			(SELECT count(*) FROM gold)`).Scan(&agreed, &gold); err != nil {
			t.Fatal(err)
		}
		if agreed != len(ids) || gold != len(ids) {
			t.Errorf("%d items agreed, %d gold answers; want %d of each", agreed, gold, len(ids))
		}
	})
}
