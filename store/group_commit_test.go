package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/store/sqlite"
	"github.com/goldtrace/goldtrace/trace"
)

// assignMany stores n traces and assigns each one's first item to alice.
func assignMany(t *testing.T, st *Store, n int) []string {
	t.Helper()
	ctx := context.Background()
	if err := st.AddUser(ctx, "alice", RoleReviewer); err != nil {
		t.Fatal(err)
	}
	var items []string
	err := st.WithTx(ctx, func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO batches(name, seed, per_item, created_at) VALUES ('b1', 1, 1, 'now')`); err != nil {
			return err
		}
		for i := range n {
			tr := sampleTrace(fmt.Sprintf("tr_%03d", i))
			tr.Messages[0].Content = fmt.Sprintf("where is package %d?", i) // not a duplicate
			if _, err := st.InsertTrace(ctx, tx, tr, "test"); err != nil {
				return err
			}
			id := trace.Items(tr)[0].ID
			if _, err := tx.ExecContext(ctx, `INSERT INTO assignments(item_id, reviewer, batch, position, updated_at) VALUES (?, 'alice', 'b1', ?, 'now')`, id, i); err != nil {
				return err
			}
			items = append(items, id)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return items
}

// holdWrites runs a write that waits until release is closed, and returns
// once it holds the write connection; writes queued meanwhile form one
// group when it ends.
func holdWrites(t *testing.T, st *Store) (release chan struct{}, done chan error) {
	t.Helper()
	started := make(chan struct{})
	release, done = make(chan struct{}), make(chan error, 1)
	go func() {
		done <- st.WithTx(context.Background(), func(tx *Tx) error {
			close(started)
			<-release
			return nil
		})
	}()
	<-started
	return release, done
}

// waitQueued waits until n write requests wait in the queue.
func waitQueued(t *testing.T, st *Store, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := st.sqliteDB().Queued()
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d requests queued, want %d", got, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestGroupCommitSubmitsConcurrently: 40 reviewers' submits arrive while
// the write connection is busy; they commit as one group (one
// transaction), each label stored once with its own audit entry, and the
// requests in the group that fail — a write that then errs, a duplicate
// submit, one that panics — roll back alone and get their own errors.
func TestGroupCommitSubmitsConcurrently(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	const n = 40
	items := assignMany(t, st, n)
	var groups []int
	st.sqliteDB().OnGroup(func(size int) { groups = append(groups, size) })

	release, held := holdWrites(t, st)
	type result struct {
		err      error
		panicked any
	}
	results := make([]result, n+3)
	var wg sync.WaitGroup
	run := func(i int, fn func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { results[i].panicked = recover() }()
			results[i].err = fn()
		}()
	}
	for i, id := range items {
		run(i, func() error {
			l := review.Label{Item: id, Reviewer: "alice", Decision: review.DecisionNoCall, Rationale: "none needed"}
			actx := WithAudit(ctx, AuditEntry{Actor: "alice", Role: RoleReviewer, Source: "ssh", Action: "label.submit", Object: "submit " + id})
			_, err := st.SubmitLabel(actx, l)
			return err
		})
	}
	// Writes, then fails: its user must not exist afterwards.
	run(n, func() error {
		return st.WithTx(WithAudit(ctx, AuditEntry{Actor: "x", Action: "users.manage", Object: "mallory"}), func(tx *Tx) error {
			if _, err := tx.ExecContext(ctx, `INSERT INTO users(name, role, created_at) VALUES ('mallory', 'lead', 'now')`); err != nil {
				return err
			}
			return errors.New("refused after writing")
		})
	})
	// A label for an item alice is not assigned.
	run(n+1, func() error {
		_, err := st.SubmitLabel(ctx, review.Label{Item: "it_unknown", Reviewer: "alice", Decision: review.DecisionNoCall, Rationale: "x"})
		return err
	})
	run(n+2, func() error {
		return st.WithTx(ctx, func(tx *Tx) error {
			if _, err := tx.ExecContext(ctx, `INSERT INTO users(name, role, created_at) VALUES ('trudy', 'lead', 'now')`); err != nil {
				return err
			}
			panic("boom")
		})
	})
	waitQueued(t, st, n+3)
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	wg.Wait()

	for i := range n {
		if results[i].err != nil || results[i].panicked != nil {
			t.Errorf("submit %d: %v %v", i, results[i].err, results[i].panicked)
		}
	}
	if err := results[n].err; err == nil || err.Error() != "refused after writing" {
		t.Errorf("the failing write: %v", err)
	}
	if !errors.Is(results[n+1].err, ErrNotFound) {
		t.Errorf("a submit for an unassigned item: %v", results[n+1].err)
	}
	if results[n+2].panicked != "boom" {
		t.Errorf("the panicking write: %v %v", results[n+2].err, results[n+2].panicked)
	}
	if len(groups) != 2 || groups[1] != n+3 {
		t.Errorf("groups %v, want the held write and then one group of %d", groups, n+3)
	}

	var labels, audits, users int
	if err := st.Reader().QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM labels WHERE reviewer = 'alice'),
		(SELECT count(*) FROM audit),
		(SELECT count(*) FROM users WHERE name IN ('mallory', 'trudy'))`).Scan(&labels, &audits, &users); err != nil {
		t.Fatal(err)
	}
	if labels != n || audits != n || users != 0 {
		t.Errorf("stored %d labels, %d audit entries, %d users of failed writes; want %d, %d, 0", labels, audits, users, n, n)
	}
	var submitted int
	st.Reader().QueryRowContext(ctx, `SELECT count(*) FROM assignments WHERE status = 'submitted'`).Scan(&submitted)
	if submitted != n {
		t.Errorf("%d assignments submitted, want %d", submitted, n)
	}
}

// TestGroupCommitInterruptedWrite: a write statement interrupted by its
// caller's cancelled context makes SQLite roll back the whole shared
// transaction. The requests that ran before it in the group fail with
// ErrUndone (retryable, nothing half-written, not run twice); the ones
// after it commit in a new transaction.
func TestGroupCommitInterruptedWrite(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	insert := func(name string) func() error {
		return func() error {
			return st.WithTx(ctx, func(tx *Tx) error {
				_, err := tx.ExecContext(ctx, `INSERT INTO users(name, role, created_at) VALUES (?, 'reviewer', 'now')`, name)
				return err
			})
		}
	}
	release, held := holdWrites(t, st)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	start := func(i int, fn func() error) {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = fn() }()
	}
	start(0, insert("before"))
	waitQueued(t, st, 1)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start(1, func() error {
		return st.WithTx(cctx, func(tx *Tx) error {
			// A long write, interrupted while it runs.
			time.AfterFunc(50*time.Millisecond, cancel)
			_, err := tx.ExecContext(cctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000000)
				INSERT INTO settings(key, value, updated_by, updated_at) SELECT 'k' || i, 'v', 'x', 'now' FROM n`)
			return err
		})
	})
	waitQueued(t, st, 2)
	start(2, insert("after"))
	waitQueued(t, st, 3)
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if !errors.Is(errs[0], ErrUndone) || !errors.Is(errs[0], ErrBusy) {
		t.Errorf("the write before the interrupted one: %v, want ErrUndone", errs[0])
	}
	if errs[1] == nil {
		t.Error("the interrupted write succeeded")
	}
	if errs[2] != nil {
		t.Errorf("the write after the interrupted one: %v", errs[2])
	}
	var before, after, settings int
	st.Reader().QueryRowContext(ctx, `SELECT (SELECT count(*) FROM users WHERE name = 'before'),
		(SELECT count(*) FROM users WHERE name = 'after'), (SELECT count(*) FROM settings)`).Scan(&before, &after, &settings)
	if before != 0 || after != 1 || settings != 0 {
		t.Errorf("stored before=%d after=%d settings=%d; want 0 1 0", before, after, settings)
	}
}

// TestGroupCommitBoundsLockHold: a group stops taking requests once its
// transaction has worked sqlite.GroupWork, so two slow writes (a bulk write's
// chunks) queued together do not hold the write lock for both; the ones
// left run in the next transaction, and all commit.
func TestGroupCommitBoundsLockHold(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	release, held := holdWrites(t, st)
	txs := make([]*Tx, 3)
	errs := make([]error, 3)
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = st.WithTx(ctx, func(tx *Tx) error {
				txs[i] = tx
				time.Sleep(sqlite.GroupWork + 10*time.Millisecond)
				_, err := tx.ExecContext(ctx, `INSERT INTO users(name, role, created_at) VALUES (?, 'reviewer', 'now')`, fmt.Sprintf("u%d", i))
				return err
			})
		}()
		waitQueued(t, st, i+1)
	}
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("write %d: %v", i, err)
		}
	}
	if txs[0] == txs[1] || txs[1] == txs[2] {
		t.Error("slow writes shared a transaction past sqlite.GroupWork")
	}
	var n int
	st.Reader().QueryRowContext(ctx, `SELECT count(*) FROM users`).Scan(&n)
	if n != 3 {
		t.Errorf("%d users stored, want 3", n)
	}
}

// TestGroupCommitAuditEntryOutlivesAnInterruptedNeighbour: an audit entry
// written on its own (CommitAudit: a refusal, an audited read) that shares
// a transaction with a write interrupted by its caller's cancelled context
// is written again, not dropped: a refusal's entry has no caller that
// would retry it (App.authorize ignores the error).
func TestGroupCommitAuditEntryOutlivesAnInterruptedNeighbour(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	auditErr := besideAnInterruptedWrite(t, st, func() error {
		return st.CommitAudit(WithAudit(ctx, AuditEntry{Actor: "mallory", Role: RoleReviewer, Source: "ssh",
			Action: "users.manage", Object: "add mallory", Outcome: AuditDenied}))
	})
	log, err := st.AuditLog(ctx, AuditFilter{Actor: "mallory"})
	if err != nil {
		t.Fatal(err)
	}
	if auditErr != nil || len(log) != 1 {
		t.Errorf("the refusal's entry: %v, %d stored; want it written once", auditErr, len(log))
	}
}

// besideAnInterruptedWrite runs write so that it shares one group
// transaction with a neighbour interrupted by its caller's cancelled context
// (SQLite then rolls the whole transaction back), and returns write's error
// once both have returned.
func besideAnInterruptedWrite(t *testing.T, st *Store, write func() error) error {
	t.Helper()
	ctx := context.Background()
	release, held := holdWrites(t, st)
	var err, writeErr error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		err = write()
	}()
	waitQueued(t, st, 1)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer wg.Done()
		writeErr = st.WithTx(cctx, func(tx *Tx) error {
			time.AfterFunc(50*time.Millisecond, cancel)
			_, err := tx.ExecContext(cctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000000)
				INSERT INTO settings(key, value, updated_by, updated_at) SELECT 'k' || i, 'v', 'x', 'now' FROM n`)
			return err
		})
	}()
	waitQueued(t, st, 2)
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if writeErr == nil {
		t.Fatal("the interrupted write succeeded")
	}
	return err
}

// TestGroupCommitQueuedWriteEndsWithItsContext: a write waiting in the
// queue whose caller's context ends returns then (as one waiting for the
// write connection did before group commit), nothing of it written; the
// writes queued beside it still commit.
func TestGroupCommitQueuedWriteEndsWithItsContext(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	insert := func(ctx context.Context, name string) error {
		return st.WithTx(ctx, func(tx *Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO users(name, role, created_at) VALUES (?, 'reviewer', 'now')`, name)
			return err
		})
	}
	release, held := holdWrites(t, st)
	cctx, cancel := context.WithCancel(ctx)
	gone, kept := make(chan error, 1), make(chan error, 1)
	go func() { gone <- insert(cctx, "gone") }()
	waitQueued(t, st, 1)
	go func() { kept <- insert(ctx, "kept") }()
	waitQueued(t, st, 2)
	cancel()
	select {
	case err := <-gone:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the cancelled write: %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		close(release)
		t.Fatal("a queued write whose context ended still waits for the write held before it")
	}
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if err := <-kept; err != nil {
		t.Fatal(err)
	}
	var names []string
	rows, err := st.Reader().QueryContext(ctx, `SELECT name FROM users ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		rows.Scan(&n)
		names = append(names, n)
	}
	rows.Close()
	if fmt.Sprint(names) != "[kept]" {
		t.Errorf("users %v, want [kept]", names)
	}
}

// TestGroupCommitNestedWithTxEndsWithItsContext: WithTx called inside a
// WithTx function (whose transaction holds the write connection) cannot
// run before the outer one ends; it fails once its context does, instead
// of hanging the caller and every writer queued behind it.
func TestGroupCommitNestedWithTxEndsWithItsContext(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	outer := make(chan error, 1)
	go func() {
		outer <- st.WithTx(ctx, func(tx *Tx) error {
			ictx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			defer cancel()
			return st.WithTx(ictx, func(tx *Tx) error { return nil })
		})
	}()
	select {
	case err := <-outer:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("the outer write: %v, want the inner one's context.DeadlineExceeded", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a WithTx inside a WithTx hangs past its context")
	}
	if err := st.AddUser(ctx, "after", RoleReviewer); err != nil {
		t.Errorf("a write after: %v", err)
	}
}

// TestGroupCommitCancelsRaceTheQueue: writers whose contexts end at
// random moments (queued, handed the leader's role, in a group) never
// hang the queue, and each one's answer is the truth: nil exactly when
// its row is stored.
func TestGroupCommitCancelsRaceTheQueue(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	const n = 120
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, time.Duration(i%7)*time.Millisecond)
			defer cancel()
			errs[i] = st.WithTx(cctx, func(tx *Tx) error {
				time.Sleep(time.Duration(i%3) * time.Millisecond)
				_, err := tx.ExecContext(context.WithoutCancel(cctx), `INSERT INTO users(name, role, created_at) VALUES (?, 'reviewer', 'now')`, fmt.Sprintf("u%03d", i))
				return err
			})
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(30 * time.Second):
		t.Fatal("writers with ending contexts hung the queue")
	}
	stored := map[string]bool{}
	rows, err := st.Reader().QueryContext(ctx, `SELECT name FROM users`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		rows.Scan(&name)
		stored[name] = true
	}
	rows.Close()
	for i, err := range errs {
		if name := fmt.Sprintf("u%03d", i); (err == nil) != stored[name] {
			t.Errorf("%s: %v, stored %v", name, err, stored[name])
		}
	}
}

// The last step of a bulk write (the batch or version made visible) that
// a grouped neighbour's interruption undoes runs again: the lead's sample or
// export is not thrown away for someone else's cancelled request.
func TestBulkWriteLastStepRunsAgainWhenUndone(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	runs := 0
	stepErr := besideAnInterruptedWrite(t, st, func() error {
		return st.withTxAgainIfUndone(ctx, func(tx *Tx) error {
			runs++
			_, err := tx.ExecContext(ctx, `INSERT INTO users(name, role, created_at) VALUES ('last', 'reviewer', 'now')`)
			return err
		})
	})
	if _, err := st.User(ctx, "last"); stepErr != nil || err != nil || runs < 2 {
		t.Errorf("the last step: %v, stored: %v, ran %d time(s); want it undone once and stored by running again", stepErr, err, runs)
	}
}
