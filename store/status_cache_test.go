package store

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// statusOf is st's status for q, and whether it was read from the database
// (not served from the cache).
// patientStamp lets a status wait up to a second for the free write
// connection to read the data's stamp, for the test's duration: a test that
// expects a cached answer must not get a fresh one because a loaded machine
// did not hand the connection over within stampWait's 1 ms.
func patientStamp(t *testing.T) {
	old := stampWait
	stampWait = time.Second
	t.Cleanup(func() { stampWait = old })
}

func statusOf(t *testing.T, st *Store, q StatusQuery) (Status, bool) {
	t.Helper()
	before := st.statuses.computed.Load()
	s, err := st.Status(context.Background(), q)
	if err != nil {
		t.Fatalf("status %+v: %v", q, err)
	}
	return s, st.statuses.computed.Load() != before
}

// TestStatusCacheFreshAfterEveryWrite: a cached status is served until
// a write of this store or of another on the same database (another
// process; on PostgreSQL, another serve replica) — never after it.
func TestStatusCacheFreshAfterEveryWrite(t *testing.T) {
	patientStamp(t)
	onEngines(t, testStatusCacheFreshAfterEveryWrite)
}

func testStatusCacheFreshAfterEveryWrite(t *testing.T, st *Store) {
	ctx := context.Background()
	item := assignTwo(t, st)
	alice := StatusQuery{As: "alice"}

	if _, fresh := statusOf(t, st, alice); !fresh {
		t.Fatal("the first status was not read from the database")
	}
	if _, fresh := statusOf(t, st, alice); fresh {
		t.Fatal("an unchanged project's status was read again, not cached")
	}
	// An audit entry alone changes nothing status reads.
	if err := st.CommitAudit(WithAudit(ctx, AuditEntry{Actor: "carol", Role: RoleLead, Source: "ssh", Action: "status", Object: "status"})); err != nil {
		t.Fatal(err)
	}
	if _, fresh := statusOf(t, st, alice); fresh {
		t.Error("an audit entry emptied the status cache")
	}

	// A write of this store.
	if err := st.SaveDraft(ctx, item, "alice", []byte(`{}`), 3); err != nil {
		t.Fatal(err)
	}
	s, fresh := statusOf(t, st, alice)
	if !fresh || s.Totals.Draft != 1 {
		t.Fatalf("after a draft: fresh %v, %+v", fresh, s.Totals)
	}

	// A write of another *Store on the same file (another process would
	// be the same to SQLite: another connection).
	other, err := Open(ctx, st.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.SubmitLabel(ctx, callLabel(item, "alice", `{"order_id":"ORD-1"}`)); err != nil {
		t.Fatal(err)
	}
	s, fresh = statusOf(t, st, alice)
	if !fresh || s.Totals.Submitted != 1 || s.Totals.Draft != 0 {
		t.Fatalf("after another store's submit: fresh %v, %+v", fresh, s.Totals)
	}
	if _, fresh := statusOf(t, st, alice); fresh {
		t.Error("the status was not cached again after the other store's write")
	}
	// The other store's own cache sees this store's write.
	if _, err := other.Status(ctx, alice); err != nil {
		t.Fatal(err)
	}
	if err := st.SaveDraft(ctx, item, "bob", []byte(`{}`), 3); err != nil {
		t.Fatal(err)
	}
	s, fresh = statusOf(t, other, alice)
	if !fresh || s.Totals.Draft != 1 {
		t.Fatalf("other store after this store's draft: fresh %v, %+v", fresh, s.Totals)
	}
}

func TestStatusCacheIsPerUser(t *testing.T) {
	patientStamp(t)
	onEngines(t, testStatusCacheIsPerUser)
}

func testStatusCacheIsPerUser(t *testing.T, st *Store) {
	ctx := context.Background()
	disputedItem(t, st) // alice and bob reviewers, carol lead
	if err := st.AddUser(ctx, "dave", RoleLead); err != nil {
		t.Fatal(err)
	}
	queries := []StatusQuery{{As: "alice"}, {As: "bob"}, {As: "carol"}, {As: "dave"}, {}, {As: "alice", Batch: "b1"}}
	// Twice round, in both orders: each answer is the asker's own, cached
	// or not.
	for round, order := range [][]int{{0, 1, 2, 3, 4, 5}, {5, 4, 3, 2, 1, 0}} {
		for _, i := range order {
			q := queries[i]
			s, fresh := statusOf(t, st, q)
			if fresh != (round == 0) {
				t.Errorf("round %d, %+v: read from the database %v", round, q, fresh)
			}
			want := ViewReviewer
			switch q.As {
			case "carol", "dave":
				want = ViewLead
			case "":
				want = ViewTotals
			}
			if s.View != want || s.As != q.As || s.Batch != q.Batch {
				t.Fatalf("round %d, %+v got view %s as %q batch %q", round, q, s.View, s.As, s.Batch)
			}
			raw, _ := json.Marshal(s)
			if want == ViewReviewer {
				if len(s.Batches[0].Reviewers) != 1 || s.Batches[0].Reviewers[0].Reviewer != q.As || s.Agreement != nil || s.Items.Disputed != nil {
					t.Errorf("round %d: %s got another view: %s", round, q.As, raw)
				}
			}
			if want == ViewLead && (s.Agreement == nil || len(s.Batches[0].Reviewers) != 2) {
				t.Errorf("round %d: lead %s got another view: %s", round, q.As, raw)
			}
		}
	}
	// A role change is a write: the next status shows the new view.
	if err := st.AddUser(ctx, "alice", RoleLead); err != nil {
		t.Fatal(err)
	}
	if s, fresh := statusOf(t, st, StatusQuery{As: "alice"}); !fresh || s.View != ViewLead {
		t.Errorf("after alice became lead: fresh %v, view %s", fresh, s.View)
	}
}

// A status is answered while another write transaction of this store holds
// the write connection: the cache's stamp does not wait for it (readers
// never wait for writers), and the answer is the committed data.
func TestStatusDoesNotWaitForAWrite(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	item := assignTwo(t, st)
	alice := StatusQuery{As: "alice"}
	statusOf(t, st, alice)
	held, release := make(chan struct{}), make(chan struct{})
	wrote := make(chan error, 1)
	go func() {
		wrote <- st.WithTx(ctx, func(tx *Tx) error {
			if _, err := tx.ExecContext(ctx, `UPDATE assignments SET status = 'draft' WHERE item_id = ? AND reviewer = 'alice'`, item); err != nil {
				return err
			}
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	got := make(chan Status, 1)
	go func() {
		s, err := st.Status(ctx, alice)
		if err != nil {
			t.Error(err)
		}
		got <- s
	}()
	select {
	case s := <-got:
		if s.Totals.Draft != 0 {
			t.Errorf("status during the write saw its uncommitted draft: %+v", s.Totals)
		}
	case <-time.After(5 * time.Second):
		t.Error("status waited for the write transaction")
	}
	close(release)
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	if s, fresh := statusOf(t, st, alice); !fresh || s.Totals.Draft != 1 {
		t.Errorf("after the write: fresh %v, %+v", fresh, s.Totals)
	}
}

// A batch still being written (a sample in progress, or one a killed
// sample left for the next to remove) is in nobody's queue, and status
// counts none of it either: not as totals, not as a batch to ask about.
func TestStatusLeavesOutABatchBeingWritten(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	assignTwo(t, st)
	if err := st.WithTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE batches SET state = 'writing' WHERE name = 'b1'`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for _, as := range []string{"alice", ""} {
		s, err := st.Status(ctx, StatusQuery{As: as})
		if err != nil {
			t.Fatal(err)
		}
		if s.Totals.Pending != 0 || s.Items.Items != 0 {
			t.Errorf("status as %q counts the batch being written: %+v %+v", as, s.Totals, s.Items)
		}
	}
	if _, err := st.Status(ctx, StatusQuery{As: "alice", Batch: "b1"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("status of the batch being written: %v, want not found", err)
	}
	if c, err := st.ItemStatusCounts(ctx, ""); err != nil || len(c) != 0 {
		t.Errorf("item counts with only a batch being written: %v %v", c, err)
	}
}

// TestStatusSharedWhileComputing: while a status is being computed, those
// who ask for the same one wait for the next computation, one for all of
// them, and it shows what was written before they asked.
func TestStatusSharedWhileComputing(t *testing.T) {
	patientStamp(t)
	onEngines(t, testStatusSharedWhileComputing)
}

func testStatusSharedWhileComputing(t *testing.T, st *Store) {
	ctx := context.Background()
	item := assignTwo(t, st)
	alice := StatusQuery{As: "alice"}
	started, release := make(chan struct{}), make(chan struct{})
	var flights atomic.Int32
	old := beforeFlight
	beforeFlight = func() {
		if flights.Add(1) == 1 {
			close(started)
			<-release
		}
	}
	t.Cleanup(func() { beforeFlight = old })
	computed := st.statuses.computed.Load()

	firstDone := make(chan error, 1)
	go func() {
		_, err := st.Status(ctx, alice)
		firstDone <- err
	}()
	<-started
	// Written after the first computation began: all who ask from now on
	// must see it.
	if err := st.SaveDraft(ctx, item, "alice", []byte(`{}`), 3); err != nil {
		t.Fatal(err)
	}
	const askers = 5
	var wg sync.WaitGroup
	got := make([]Status, askers)
	errs := make([]error, askers)
	for i := range askers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = st.Status(ctx, alice)
		}()
	}
	// Release the first computation once one of them waits for the next.
	for {
		st.statuses.mu.Lock()
		f := st.statuses.flights[alice]
		waiting := f != nil && f.next != nil
		st.statuses.mu.Unlock()
		if waiting {
			break
		}
		runtime.Gosched()
	}
	close(release)
	wg.Wait()
	if err := <-firstDone; err != nil {
		t.Fatal(err)
	}
	for i := range askers {
		if errs[i] != nil || got[i].Totals.Draft != 1 {
			t.Fatalf("asker %d: %v, totals %+v (want the draft written before it asked)", i, errs[i], got[i].Totals)
		}
	}
	if n := st.statuses.computed.Load() - computed; n != 2 {
		t.Errorf("%d statuses computed for 1 + %d askers, want 2 (the first, then one for all who asked meanwhile)", n, askers)
	}
	st.statuses.mu.Lock()
	defer st.statuses.mu.Unlock()
	if len(st.statuses.flights) != 0 {
		t.Errorf("flights left over: %v", st.statuses.flights)
	}
}
