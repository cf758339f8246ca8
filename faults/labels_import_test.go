package faults

import (
	"context"
	"database/sql"

	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/store/postgres"
)

// TestReviewersBesideLabelsImport runs a labels import of thousands of
// labels while 4 reviewers label other items on the same project, on
// each engine: the import succeeds with every label stored, no reviewer
// is shown a busy or locked error, every acknowledged label is stored,
// and a writer that asks for the write lock as a reviewer's submit or
// draft does (SQLite's file lock; PostgreSQL's writers' lock, shared,
// and the lock of one of the items being imported) is never kept waiting
// beyond maxLockWait while the import runs.
func TestReviewersBesideLabelsImport(t *testing.T) {
	onEngines(t, testReviewersBesideLabelsImport)
}

// maxLockWait bounds how long a reviewer's write may wait for a bulk
// write's transaction: its pace (200 ms of work, then the lock is left
// free for whoever waits), with room for a loaded machine under -race.
const maxLockWait = 3 * time.Second

func testReviewersBesideLabelsImport(t *testing.T, engine string) {
	reviewers := []string{"r1", "r2", "r3", "r4"}
	const perReviewer = 5
	dir := t.TempDir()
	db, _ := projectOn(t, engine, dir, 2500, 2*len(reviewers)*perReviewer, reviewers...)
	for _, r := range []string{"alice", "bob"} {
		must(t, db, "users", "add", r, "--role", "reviewer", "--as", "carol")
	}
	must(t, db, "sample", "--n", "3000", "--seed", "5", "--reviewers", "alice,bob", "--batch", "big")
	big := sqlStrings(t, db, `SELECT item_id FROM batch_items WHERE batch = 'big' ORDER BY position`)
	file := filepath.Join(dir, "big.jsonl")
	writeAgreedLabels(t, file, big, "alice", "bob")

	labelers := startLabelers(t, db, reviewers)
	var probe interface{ finish() (time.Duration, int) }
	if engine == "postgres" {
		probe = startPGLockProbe(t, db, big)
	} else {
		probe = startLockProbe(t, db)
	}
	var res result
	var took time.Duration
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		res = run(t, db, "labels", "import", file, "--as", "carol", "--for-others")
		took = time.Since(start)
	}()
	labelInTurn(labelers, perReviewer)
	wg.Wait()
	longest, probeBusy := probe.finish()
	busyShown, acked, stored := finishLabelers(t, db, labelers, reviewers, perReviewer)

	if res.code != 0 {
		t.Fatalf("labels import: exit %d: %s", res.code, res.err)
	}
	noRawSQLite(t, res.err)
	if n := sqlCount(t, db, `SELECT count(*) FROM labels WHERE reviewer IN ('alice', 'bob')`); n != 2*len(big) {
		t.Errorf("%d labels by alice and bob stored, want %d", n, 2*len(big))
	}
	if n := sqlCount(t, db, `SELECT count(*) FROM gold g JOIN batch_items b ON b.item_id = g.item_id AND b.batch = 'big'`); n != len(big) {
		t.Errorf("%d of the imported items are gold, want %d", n, len(big))
	}
	if busyShown > 0 {
		t.Errorf("reviewers were shown %d busy/locked messages", busyShown)
	}
	if probeBusy > 0 {
		t.Errorf("the lock probe gave up %d times", probeBusy)
	}
	if longest > maxLockWait {
		t.Errorf("a writer beside the import waited %s for the write lock, over %s", longest.Round(time.Millisecond), maxLockWait)
	}
	checkPasses(t, db)
	t.Logf("FIGURES labels import beside reviewers (%s): %d labels imported in %s; 4 labelers, %d labels acknowledged, %d stored; longest write-lock wait seen by a probe %s",
		engine, 2*len(big), took.Round(time.Millisecond), acked, stored, longest.Round(time.Millisecond))
}

// pgLockProbe is startLockProbe on PostgreSQL: a session that, every
// 5 ms, begins a transaction and takes the writers' lock shared and then
// the lock of one of items (in turn), as a reviewer's submit or draft of
// that item does first, and records the longest wait.
type pgLockProbe struct {
	stop, done chan struct{}
	longest    time.Duration
	busy       int
	err        error
}

func startPGLockProbe(t *testing.T, dsn string, items []string) *pgLockProbe {
	t.Helper()
	h, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	p := &pgLockProbe{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		defer h.Close()
		ctx := context.Background()
		for i := 0; ; i++ {
			select {
			case <-p.stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			tx, err := h.BeginTx(ctx, nil)
			if err != nil {
				p.busy++
				continue
			}
			start := time.Now()
			if _, err = tx.ExecContext(ctx, `SET LOCAL lock_timeout = '15s'`); err == nil {
				_, err = tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock_shared($1)`, postgres.WritersLock)
			}
			if err == nil {
				// The key a reviewer's writes to the item are scoped to.
				key := postgres.KeyLock("item " + items[i%len(items)])
				_, err = tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1, $2)`, postgres.ScopeLocks, key)
			}
			if err != nil {
				p.busy++
			} else {
				p.longest = max(p.longest, time.Since(start))
			}
			tx.Rollback()
		}
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.finish()
		}
	})
	return p
}

func (p *pgLockProbe) finish() (time.Duration, int) {
	close(p.stop)
	<-p.done
	return p.longest, p.busy
}
