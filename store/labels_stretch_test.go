//go:build unix

package store

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/internal/bulk"
	"github.com/goldtrace/goldtrace/review"
)

// stretchLabels is a project of 20 items, each assigned to alice and bob,
// and both labels of every item.
func stretchLabels(t *testing.T, st *Store) []review.Label {
	t.Helper()
	ids := reviewersBatch(t, st, 20, "alice", "bob")
	var labels []review.Label
	for _, id := range ids {
		labels = append(labels, noCallLabel(id, "alice"), noCallLabel(id, "bob"))
	}
	return labels
}

// A labels import alone on the database goes on past its chunk time while
// no other writer waits (pace.stretch): one transaction here, whose chunk
// time would have made one per group.
func TestSubmitLabelsStretchWhileNoWriterWaits(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		labels := stretchLabels(t, st)
		txs := 0
		pace := bulkPace{Pace: bulk.Pace{ChunkTime: time.Nanosecond, Yield: time.Millisecond, Held: func(_, _ time.Duration) { txs++ }},
			stretch: time.Minute}
		sets, err := st.submitLabels(context.Background(), labels, pace)
		if err != nil {
			t.Fatal(err)
		}
		if txs != 1 {
			t.Errorf("%d transactions, want 1", txs)
		}
		if c := tableCounts(t, st); c[0] != len(labels) || c[1] != len(labels)/2 || !sets[len(sets)-1].Settled {
			t.Errorf("labels, gold, disputes, submitted, settled = %v", c)
		}
	})
}

// While a writer waits (another process's, seen through the wait mark it
// holds), the stretch is off: a transaction ends at its chunk time.
func TestSubmitLabelsStretchEndsForAWaitingWriter(t *testing.T) {
	st := openTemp(t)
	labels := stretchLabels(t, st)
	mark, err := os.OpenFile(st.Path()+"-wait", os.O_RDONLY|os.O_CREATE, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	defer mark.Close()
	if err := syscall.Flock(int(mark.Fd()), syscall.LOCK_SH); err != nil {
		t.Skipf("no flock here: %v", err)
	}
	if !st.db.WritersWaiting(context.Background()) {
		t.Fatal("the waiting writer's mark is not seen")
	}
	txs := 0
	pace := bulkPace{Pace: bulk.Pace{ChunkTime: time.Nanosecond, Yield: time.Millisecond, Held: func(_, _ time.Duration) { txs++ }},
		stretch: time.Minute}
	if _, err := st.submitLabels(context.Background(), labels, pace); err != nil {
		t.Fatal(err)
	}
	if txs < 2 {
		t.Errorf("%d transactions while a writer waited, want one a chunk time", txs)
	}
}

// WritersWaiting sees a write of another handle (another process) waiting
// for the lock a transaction holds, on both engines.
func TestWritersWaitingSeesAWaitingWriter(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		ctx := context.Background()
		waiter, err := Open(ctx, st.Path())
		if err != nil {
			t.Fatal(err)
		}
		defer waiter.Close()
		if st.db.WritersWaiting(ctx) {
			t.Fatal("a writer is said to wait while none does")
		}
		release, holderDone := holdWrites(t, st)
		waiterDone := make(chan error, 1)
		go func() { waiterDone <- waiter.AddUser(ctx, "alice", RoleReviewer) }()
		deadline := time.Now().Add(5 * time.Second)
		for !st.db.WritersWaiting(ctx) {
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
		if st.db.WritersWaiting(ctx) {
			t.Fatal("a writer is said to wait after every write is done")
		}
	})
}
