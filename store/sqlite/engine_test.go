package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/goldtrace/goldtrace/internal/bulk"
)

// testMigrations is a schema of the engine's own table only.
var testMigrations = fstest.MapFS{"0001_state.sql": {Data: []byte(
	`CREATE TABLE store_state (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;`)}}

// openTemp opens a new database in a temporary directory.
func openTemp(t *testing.T) *DB {
	t.Helper()
	return openAt(t, filepath.Join(t.TempDir(), "gt.db"))
}

func openAt(t *testing.T, path string) *DB {
	t.Helper()
	d, err := Open(context.Background(), path, Options{Migrations: testMigrations})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// holdWrites runs a write transaction that holds the write lock until
// release is closed; done gets its outcome.
func holdWrites(t *testing.T, d *DB) (release chan struct{}, done chan error) {
	t.Helper()
	started := make(chan struct{})
	release, done = make(chan struct{}), make(chan error, 1)
	go func() {
		done <- d.WithTx(context.Background(), func(tx *sql.Tx) error {
			close(started)
			<-release
			return nil
		})
	}()
	<-started
	return release, done
}

// waitBehindHeldLock opens three handles on a new database (three
// processes): one holds the write lock until release is called, the
// writer's will wait for it, the bulk one probes for waiters.
func waitBehindHeldLock(t *testing.T) (writer, bulk *DB, release func()) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "gt.db")
	var handles [3]*DB
	for i := range handles {
		handles[i] = openAt(t, path)
	}
	free, holderDone := holdWrites(t, handles[0])
	return handles[1], handles[2], func() {
		close(free)
		if err := <-holderDone; err != nil {
			t.Fatal(err)
		}
	}
}

// seenWaiting reports whether bulk's probe sees a writer waiting within
// two seconds.
func seenWaiting(bulk *DB) bool {
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if bulk.OthersWaiting() {
			return true
		}
	}
	return false
}

// TestPauseWhereFlockFailsIsOneYield: where flock fails (no flock, a file
// system without locks), no waiter can be seen and a bulk writer pauses
// its yield between chunks, not the longest pause meant for writers it
// sees waiting.
func TestPauseWhereFlockFailsIsOneYield(t *testing.T) {
	st := openTemp(t)
	st.waiters.open(st.Path())
	if !st.waiters.canTell() {
		t.Fatal("flock is not used on unix")
	}
	st.waiters.probe.Close() // its flock now fails (EBADF)
	yield := 100 * time.Millisecond
	began := time.Now()
	if err := st.PauseForWaiters(context.Background(), began, yield); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(began); took >= 2*yield {
		t.Fatalf("paused %v, want about the yield %v", took, yield)
	}
	if st.waiters.canTell() {
		t.Fatal("waiters are said to be seen where flock fails")
	}
}

// TestGroupWithABulkChunkFirstSaysItWaits: a shared transaction whose
// first request is a bulk writer's chunk (an undone import's, run by
// WithTx) and whose next is a reviewer's write says it waits for the lock,
// as the reviewer's alone would.
func TestGroupWithABulkChunkFirstSaysItWaits(t *testing.T) {
	ctx := context.Background()
	grouped, bulkDB, release := waitBehindHeldLock(t)
	w, err := grouped.writer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	noop := func(tx *sql.Tx) error { return nil }
	todo := []*writeReq{
		{ctx: bulk.Write(ctx), fn: noop, done: make(chan struct{})},
		{ctx: ctx, fn: noop, done: make(chan struct{})},
	}
	groupDone := make(chan struct{})
	go func() {
		for len(todo) > 0 {
			todo = grouped.commitShared(w, todo)
		}
		close(groupDone)
	}()
	seen := seenWaiting(bulkDB)
	release()
	<-groupDone
	if !seen {
		t.Fatal("a reviewer's write grouped behind a bulk chunk is not seen waiting")
	}
}

// TestDailyCheckWriteSaysItWaits: the time of the daily quick check, written
// on a command's first write, waiting for the write lock is seen by a bulk
// writer's probe: else an import in another process starves it, up to the
// busy timeout that fails the reviewer's command.
func TestDailyCheckWriteSaysItWaits(t *testing.T) {
	ctx := context.Background()
	st, bulk, release := waitBehindHeldLock(t)
	w, err := st.writer(ctx) // the quick check is not due yet
	if err != nil {
		t.Fatal(err)
	}
	st.Now = func() time.Time { return time.Now().UTC().Add(2 * quickCheckEvery) }
	checked := make(chan error, 1)
	go func() { checked <- st.quickCheckIfDue(ctx, w) }()
	seen := seenWaiting(bulk)
	release()
	if err := <-checked; err != nil {
		t.Fatal(err)
	}
	if !seen {
		t.Fatal("the daily check's write waiting for the lock is not seen")
	}
}

// A request handed the leader's role just as its context ended passes the
// role on when it leaves: to the next request, or, with none, the queue
// has no leader (the next WithTx leads).
func TestGroupCommitLeavingPassesTheLeadOn(t *testing.T) {
	req := func() *writeReq { return &writeReq{lead: make(chan struct{}, 1), done: make(chan struct{})} }
	a, b := req(), req()
	q := &writeQueue{pending: []*writeReq{a, b}, leading: true}
	a.lead <- struct{}{}
	if !q.leave(a) || len(q.pending) != 1 || q.pending[0] != b {
		t.Fatalf("a did not leave: %v", q.pending)
	}
	select {
	case <-b.lead:
	default:
		t.Fatal("the role handed to a did not go on to b")
	}
	b.lead <- struct{}{}
	if !q.leave(b) || len(q.pending) != 0 || q.leading {
		t.Errorf("b left the role to nobody: pending %d, leading %v", len(q.pending), q.leading)
	}
	if q.leave(b) {
		t.Error("b left twice")
	}
}
