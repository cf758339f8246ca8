package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/internal/bulk"
	"github.com/goldtrace/goldtrace/trace"
)

func allItems(t testing.TB, st *Store) []string {
	t.Helper()
	ids, err := queryStrings(context.Background(), st.r, `SELECT id FROM items ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func newBatchOf(name string, ids []string, reviewers ...string) NewBatch {
	b := NewBatch{Name: name, Seed: 1, PerItem: len(reviewers)}
	for _, id := range ids {
		b.Items = append(b.Items, BatchItem{ItemID: id, Reviewers: reviewers})
	}
	return b
}

// reviewersBatch makes n traces' items (fillTraces) and batch b1 of all of
// them, assigned to reviewers (each added as a reviewer), and returns the
// items.
func reviewersBatch(t testing.TB, st *Store, n int, reviewers ...string) []string {
	t.Helper()
	ctx := context.Background()
	fillTraces(t, st, n)
	for _, r := range reviewers {
		if err := st.AddUser(ctx, r, RoleReviewer); err != nil {
			t.Fatal(err)
		}
	}
	ids := allItems(t, st)
	if err := st.CreateBatch(ctx, newBatchOf("b1", ids, reviewers...)); err != nil {
		t.Fatal(err)
	}
	return ids
}

// counts also checks that in_batch (what sampling reads) is set exactly
// on the items whose status is not 'new', however a batch came and went.
func counts(t *testing.T, st *Store) (batches, assignments, sampled int) {
	t.Helper()
	var flagged int
	err := st.r.QueryRow(`SELECT (SELECT count(*) FROM batches), (SELECT count(*) FROM assignments),
		(SELECT count(*) FROM items WHERE status <> 'new'),
		(SELECT count(*) FROM items WHERE (status <> 'new') = (in_batch = 1))`).Scan(&batches, &assignments, &sampled, &flagged)
	if err != nil {
		t.Fatal(err)
	}
	var items int
	if err := st.r.QueryRow(`SELECT count(*) FROM items`).Scan(&items); err != nil {
		t.Fatal(err)
	}
	if flagged != items {
		t.Errorf("%d of %d items have in_batch set as their status says", flagged, items)
	}
	return
}

// A batch that fails after some chunks committed leaves nothing behind.
func TestCreateBatchFailingMidwayLeavesNothing(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	fillTraces(t, st, 50)
	for _, r := range []string{"alice", "bob"} {
		if err := st.AddUser(ctx, r, RoleReviewer); err != nil {
			t.Fatal(err)
		}
	}
	ids := append(allItems(t, st), "it_missing")
	tiny := bulkPace{Pace: bulk.Pace{ChunkTime: time.Nanosecond, Yield: time.Millisecond}} // one item per transaction
	err := st.createBatch(ctx, newBatchOf("b1", ids, "alice", "bob"), tiny)
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	if b, a, s := counts(t, st); b != 0 || a != 0 || s != 0 {
		t.Errorf("after a failed batch: %d batches, %d assignments, %d items not new", b, a, s)
	}
	// The same batch without the bad item is written whole.
	if err := st.createBatch(ctx, newBatchOf("b1", ids[:len(ids)-1], "alice", "bob"), tiny); err != nil {
		t.Fatal(err)
	}
	if b, a, s := counts(t, st); b != 1 || a != 2*(len(ids)-1) || s != len(ids)-1 {
		t.Errorf("after the batch: %d batches, %d assignments, %d items sampled", b, a, s)
	}
	if a, err := st.NextAssignment(ctx, "alice", ""); err != nil || a.Position != 0 {
		t.Errorf("first assignment %+v %v", a, err)
	}
}

// A batch drawn from a file writes its traces in short transactions too,
// and a failure deletes the traces it stored (not those stored before).
func TestCreateBatchWithTracesChunksAndUndoesThem(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	fillTraces(t, st, 2) // tr_00000 and tr_00001 are stored before
	if err := st.AddUser(ctx, "alice", RoleReviewer); err != nil {
		t.Fatal(err)
	}
	b := NewBatch{Name: "b1", Seed: 1, PerItem: 1, Source: "file.jsonl"}
	for i := 0; i < 6; i++ {
		tr := sampleTrace(fmt.Sprintf("tr_%05d", i))
		tr.Messages[0].Content = strings.Repeat("where is my package? ", 20) + tr.ID
		b.Traces = append(b.Traces, tr)
		for _, it := range trace.Items(tr) {
			b.Items = append(b.Items, BatchItem{ItemID: it.ID, Reviewers: []string{"alice"}})
		}
	}
	good := b.Items
	b.Items = append(b.Items, BatchItem{ItemID: "it_missing", Reviewers: []string{"alice"}})
	txs := 0
	tiny := bulkPace{Pace: bulk.Pace{ChunkTime: time.Nanosecond, Yield: time.Millisecond, Held: func(_, _ time.Duration) { txs++ }}}
	if err := st.createBatch(ctx, b, tiny); !errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v, want ErrNotFound", err)
	}
	if txs < len(b.Traces)+len(good) {
		t.Errorf("%d transactions for %d traces and %d items: not one per unit", txs, len(b.Traces), len(good))
	}
	stored, err := queryStrings(ctx, st.r, `SELECT id FROM traces ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(stored, ",") != "tr_00000,tr_00001" {
		t.Errorf("traces after the failed batch: %v, want the two stored before", stored)
	}
	if bs, a, smp := counts(t, st); bs != 0 || a != 0 || smp != 0 {
		t.Errorf("after a failed batch: %d batches, %d assignments, %d items not new", bs, a, smp)
	}
	b.Items = good
	if err := st.createBatch(ctx, b, tiny); err != nil {
		t.Fatal(err)
	}
	if bs, a, smp := counts(t, st); bs != 1 || a != len(good) || smp != len(good) {
		t.Errorf("after the batch: %d batches, %d assignments, %d items sampled", bs, a, smp)
	}
}

// A batch left 'writing' by a killed sample is out of every queue, reported
// by check once its heartbeat is old, and removed by the next sample.
func TestAbandonedBatchIsHiddenReportedAndRemoved(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	fillTraces(t, st, 10)
	if err := st.AddUser(ctx, "alice", RoleReviewer); err != nil {
		t.Fatal(err)
	}
	ids := allItems(t, st)
	if err := st.createBatch(ctx, newBatchOf("b1", ids, "alice"), defaultBulkPace); err != nil {
		t.Fatal(err)
	}
	// As if killed before the last chunk: flip it back to writing.
	if _, err := st.r.Exec(`SELECT 1`); err != nil {
		t.Fatal(err)
	}
	if err := st.WithTx(ctx, func(tx *Tx) error {
		_, err := tx.Exec(`UPDATE batches SET state = 'writing', heartbeat_at = ?`, st.heartbeat(st.Now()))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.NextAssignment(ctx, "alice", ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("a writing batch is in the queue: %v", err)
	}
	if q, _ := st.Queue(ctx, "alice", ""); len(q) != 0 {
		t.Errorf("queue %v", q)
	}
	// Nor can its items be opened or drafted by id: a label there would pin
	// a batch that the next sample must remove.
	if _, err := st.Assignment(ctx, ids[0], "alice"); !errors.Is(err, ErrNotFound) {
		t.Errorf("an assignment of a writing batch opens: %v", err)
	}
	if err := st.SaveDraft(ctx, ids[0], "alice", []byte(`{}`), 1); !errors.Is(err, ErrNotFound) {
		t.Errorf("a draft saved in a writing batch: %v", err)
	}
	if p, _ := st.Check(ctx); len(p) != 0 {
		t.Errorf("a batch being written is reported: %v", p)
	}
	now := st.Now
	st.Now = func() time.Time { return now().Add(2 * abandonedAfter) }
	if p, _ := st.Check(ctx); len(p) != 1 || p[0].Kind != "batch" {
		t.Errorf("abandoned batch not reported: %v", p)
	}
	if err := st.createBatch(ctx, newBatchOf("b2", ids[:1], "alice"), defaultBulkPace); err != nil {
		t.Fatal(err)
	}
	if b, a, s := counts(t, st); b != 1 || a != 1 || s != 1 {
		t.Errorf("after the next sample: %d batches, %d assignments, %d sampled", b, a, s)
	}
}

// A reviewer's writes go through while a large batch is written: none
// fails, and each gets in between the batch's chunks, again and again,
// rather than after the batch (writerTurns: by the order of events, which
// holds under the race detector and on a loaded machine); no chunk does
// a large share of the work.
func TestWritesGoThroughWhileALargeBatchIsWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a large batch")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gt.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	n := 4000
	if raceEnabled {
		n = 150 // the race detector makes each write ~50 times slower
	}
	fillTraces(t, st, n)
	for _, r := range []string{"alice", "bob"} {
		if err := st.AddUser(ctx, r, RoleReviewer); err != nil {
			t.Fatal(err)
		}
	}
	other, err := OpenWith(ctx, path, Options{BusyTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.AddUser(ctx, "warm", RoleReviewer); err != nil {
		t.Fatal(err)
	}
	ids := allItems(t, st)
	turns := newWriterTurns()
	var held, worked time.Duration
	pace := defaultBulkPace
	// Chunks shorter than the default's, so that any machine writes many
	// of them; the pause between them is the default's.
	pace.ChunkTime = 20 * time.Millisecond
	pace.Held = func(work, total time.Duration) {
		worked, held = max(worked, work), max(held, total)
		turns.chunkDone()
	}
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- st.createBatch(ctx, newBatchOf("b1", ids, "alice", "bob"), pace) }()
	stop, wrote := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(wrote)
		turns.run(stop, func(i int) error { return other.AddUser(ctx, fmt.Sprintf("u%d", i%5), RoleReviewer) })
	}()
	err = <-done
	close(stop)
	<-wrote
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("batch of %d items × 2 reviewers in %s, %d transactions: the longest worked %s and held the lock %s with its commit; %d writes beside it",
		len(ids), time.Since(start).Round(time.Millisecond), turns.chunks.Load(), worked.Round(time.Millisecond), held.Round(time.Millisecond), len(turns.spans))
	turns.check(t, 4)
	// Chunks are sized by time, not by count: none did a large share of
	// the work. (Against the clock, a loaded machine that stops the
	// goroutine mid-chunk makes any chunk long; the lock's hold time is
	// measured on the real binary by the faults suite's lock probe.)
	if elapsed := time.Since(start); worked > elapsed/4 {
		t.Errorf("a chunk worked %s of the batch's %s with the lock held (chunks stop taking work after %s)", worked, elapsed, pace.ChunkTime)
	}
}

// Bulk chunks commit with synchronous=NORMAL, and every other write on the
// same connection afterwards (a label submit) with FULL again.
func TestBulkChunksCommitRelaxedAndSubmitsStayFull(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	syncMode := func(tx *Tx) int {
		var mode int
		if err := tx.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&mode); err != nil {
			t.Fatal(err)
		}
		return mode
	}
	var inChunk []int
	err := st.inChunks(ctx, 3, bulkPace{Pace: bulk.Pace{ChunkTime: time.Nanosecond, Yield: time.Millisecond}}, func(tx *Tx, from int, _ time.Time) (int, error) {
		inChunk = append(inChunk, syncMode(tx))
		return 1, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var after int
	if err := st.WithTx(ctx, func(tx *Tx) error { after = syncMode(tx); return nil }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(inChunk) != "[1 1 1]" || after != 2 {
		t.Errorf("synchronous in the chunks %v, after them %d; want NORMAL (1) then FULL (2)", inChunk, after)
	}
}

// While an import writes its chunks relaxed, a write of the same process
// beside it (a reviewer's submit under serve) still commits with FULL:
// the chunks hold the connection for themselves instead of switching it.
func TestWritesBesideAnImportStayFull(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	var modes []int
	var werr error
	_, err := st.ImportTraces(ctx, bytesOpener(importBenchTraces(60, 1)), ImportOptions{Source: "x", pace: smallChunks,
		OnProgress: func(p ImportProgress) {
			if p.Imported == 0 || werr != nil {
				return
			}
			werr = st.WithTx(ctx, func(tx *Tx) error {
				var mode int
				err := tx.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&mode)
				modes = append(modes, mode)
				return err
			})
		}})
	if err != nil || werr != nil {
		t.Fatal(err, werr)
	}
	if len(modes) == 0 {
		t.Fatal("no write ran beside the import")
	}
	for _, m := range modes {
		if m != 2 {
			t.Fatalf("synchronous of writes beside the import %v, want FULL (2) each", modes)
		}
	}
}

// A bulk chunk whose function panics (a bug in it) rolls back at once: the
// panic reaches the caller, nothing of the chunk stays, and the write
// connection it held goes back to the others with FULL. An open
// transaction used to block the held connection's release, so the panic
// never reached the caller and every writer of the process waited until
// the chunk's context ended.
func TestBulkChunkPanicRollsBackAndFreesTheConnection(t *testing.T) {
	st := openTemp(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	began := time.Now()
	got := func() (p any) {
		defer func() { p = recover() }()
		_ = st.db.WithRelaxedTx(ctx, func(tx *Tx) error {
			if _, err := tx.ExecContext(ctx, `INSERT INTO users(name, role, created_at) VALUES ('bob', 'reviewer', 'now')`); err != nil {
				return err
			}
			panic("boom")
		})
		return nil
	}()
	if took := time.Since(began); got != "boom" || took > 2*time.Second {
		t.Fatalf("the chunk's panic reached the caller after %s as %v; want boom at once", took.Round(time.Millisecond), got)
	}
	var users, mode int
	err := st.WithTx(context.Background(), func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO users(name, role, created_at) VALUES ('carol', 'reviewer', 'now')`); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM users WHERE name = 'bob'`).Scan(&users); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&mode)
	})
	if err != nil || users != 0 || mode != 2 {
		t.Errorf("the next write: %v, the chunk's user stored %d times, synchronous %d; want nil, 0, FULL (2)", err, users, mode)
	}
}

// Progress counts a reviewer's assignments by status, in one batch or all,
// and leaves out a batch being written, on both engines.
func TestProgressCountsByStatusOutsideWritingBatches(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		ctx := context.Background()
		fillTraces(t, st, 10)
		for _, u := range []string{"alice", "bob"} {
			if err := st.AddUser(ctx, u, RoleReviewer); err != nil {
				t.Fatal(err)
			}
		}
		ids := allItems(t, st)
		if len(ids) < 6 {
			t.Fatalf("%d items", len(ids))
		}
		for _, b := range []struct {
			name  string
			items []string
		}{{"b1", ids[:4]}, {"b2", ids[4:6]}} {
			if err := st.createBatch(ctx, newBatchOf(b.name, b.items, "alice"), defaultBulkPace); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.SaveDraft(ctx, ids[0], "alice", []byte(`{}`), 1); err != nil {
			t.Fatal(err)
		}
		want := func(reviewer, batch string, w map[string]int) {
			t.Helper()
			got, err := st.Progress(ctx, reviewer, batch)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(w) {
				t.Errorf("Progress(%s, %q) = %v, want %v", reviewer, batch, got, w)
			}
			for k, n := range w {
				if got[k] != n {
					t.Errorf("Progress(%s, %q) = %v, want %v", reviewer, batch, got, w)
				}
			}
		}
		want("alice", "", map[string]int{AssignPending: 5, AssignDraft: 1})
		want("alice", "b1", map[string]int{AssignPending: 3, AssignDraft: 1})
		want("alice", "b2", map[string]int{AssignPending: 2})
		want("bob", "", map[string]int{})
		if err := st.WithTx(ctx, func(tx *Tx) error {
			_, err := tx.ExecContext(ctx, `UPDATE batches SET state = 'writing' WHERE name = 'b2'`)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		want("alice", "", map[string]int{AssignPending: 3, AssignDraft: 1})
		want("alice", "b2", map[string]int{})
		want("alice", "b1", map[string]int{AssignPending: 3, AssignDraft: 1})
	})
}
