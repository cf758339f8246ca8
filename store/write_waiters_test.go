//go:build unix

package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOthersWaitingSeesAWaitingWriter: a transaction of another handle on
// the database (another process) waiting for the write lock is seen by a
// bulk writer's probe, and only while it waits.
func TestOthersWaitingSeesAWaitingWriter(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gt.db")
	holder, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	waiter, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer waiter.Close()
	bulk, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer bulk.Close()

	if bulk.sqliteDB().OthersWaiting() {
		t.Fatal("a writer is said to wait while none does")
	}
	release, holderDone := holdWrites(t, holder)
	if bulk.sqliteDB().OthersWaiting() {
		t.Fatal("the lock's holder is said to wait")
	}
	waiterDone := make(chan error, 1)
	go func() { waiterDone <- waiter.AddUser(ctx, "alice", RoleReviewer) }()
	deadline := time.Now().Add(5 * time.Second)
	for !bulk.sqliteDB().OthersWaiting() {
		if time.Now().After(deadline) {
			t.Fatal("a writer waiting for the lock is not seen")
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	if err := <-holderDone; err != nil {
		t.Fatal(err)
	}
	if err := <-waiterDone; err != nil {
		t.Fatal(err)
	}
	if bulk.sqliteDB().OthersWaiting() {
		t.Fatal("a writer is said to wait after every write is done")
	}
}

// TestImportAlonePausesNot: an import nobody waits behind writes its
// chunks one after the other; the pause between them (a second each
// here) is only for a waiting writer, which TestImportLetsOtherWritersIn
// shows gets in.
func TestImportAlonePausesNot(t *testing.T) {
	st := openTemp(t)
	pace := importPace{chunkTraces: 10, chunkTime: time.Second, yield: time.Second}
	began := time.Now()
	res, err := st.ImportTraces(context.Background(), bytesOpener(importBenchTraces(60, 1)), ImportOptions{Source: "x", pace: pace})
	if err != nil {
		t.Fatal(err)
	}
	if res.chunks < 6 {
		t.Fatalf("%d chunks, want at least 6", res.chunks)
	}
	if took := time.Since(began); took > 3*time.Second {
		t.Fatalf("%d chunks took %v: the import paused with no writer waiting", res.chunks, took)
	}
}

// TestJudgeCacheWriteSaysItWaits: a judge run's cache write (one statement
// outside a transaction) waiting for the write lock is seen by a bulk
// writer's probe, as a transaction's is: else an import in another process
// starves it for seconds, up to the busy timeout that fails the judge run.
func TestJudgeCacheWriteSaysItWaits(t *testing.T) {
	judge, bulk, release := waitBehindHeldLock(t)
	k := JudgeKey{Endpoint: "http://judge", Model: "m", TemplateSHA256: strings.Repeat("a", 64), Kind: "args", InputSHA256: strings.Repeat("b", 64)}
	putDone := make(chan error, 1)
	go func() { putDone <- judge.PutJudgeVerdict(context.Background(), k, []byte(`{"score":1}`)) }()
	seen := seenWaiting(bulk)
	release()
	if err := <-putDone; err != nil {
		t.Fatal(err)
	}
	if !seen {
		t.Fatal("a judge cache write waiting for the lock is not seen")
	}
	if bulk.sqliteDB().OthersWaiting() {
		t.Fatal("a writer is said to wait after every write is done")
	}
}

// waitBehindHeldLock opens three handles on a new database (three
// processes): one holds the write lock until release is called, the
// writer's will wait for it, the bulk one probes for waiters.
func waitBehindHeldLock(t *testing.T) (writer, bulk *Store, release func()) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gt.db")
	var handles [3]*Store
	for i := range handles {
		st, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		handles[i] = st
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
func seenWaiting(bulk *Store) bool {
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if bulk.sqliteDB().OthersWaiting() {
			return true
		}
	}
	return false
}
