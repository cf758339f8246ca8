package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/goldtrace/goldtrace/internal/bulk"
	"github.com/goldtrace/goldtrace/internal/dberr"
)

// Group commit: the SSH server runs every reviewer's writes in one process,
// on the store's one write connection, and each commit waits for an fsync
// (synchronous=FULL). WithTx calls that arrive while a transaction is being
// written queue up, and the next transaction runs all of them, each in a
// savepoint of its own, and commits them with one fsync. A request that
// fails rolls back to its savepoint and fails alone; every caller returns
// only after the commit that holds its work (a label is acknowledged only
// once it is durable), with its own result.

// maxGroup bounds how many requests share one transaction, and GroupWork
// how long a transaction goes on taking the next request: a group holds
// the write lock little longer than its longest request (a bulk write's
// chunk works up to 80 ms, bulkPace), so no writer holds it for long.
const (
	maxGroup = 64
	// GroupWork is exported for the tests of the engine's users.
	GroupWork = 40 * time.Millisecond
)

// writeReq is one WithTx call waiting for its transaction.
type writeReq struct {
	ctx context.Context
	fn  func(tx *Tx) error
	// lead is signalled when this request's caller is to run the queue.
	lead chan struct{}
	done chan struct{}
	err  error
	// panicked is a panic of fn, raised again in the caller's goroutine.
	panicked any
}

// writeQueue is the requests waiting for the write connection. One caller
// at a time, the leader, runs transactions for the queue; it hands the
// role to the oldest waiting request once its own work is committed.
type writeQueue struct {
	mu      sync.Mutex
	pending []*writeReq
	leading bool
	// grouped, when set, is told the size of each group run (tests).
	grouped func(n int)
}

// runGrouped queues fn and returns once the transaction holding it has
// committed (or fn failed, or the transaction did).
func (d *DB) runGrouped(ctx context.Context, w *sql.DB, fn func(tx *Tx) error) error {
	r := &writeReq{ctx: ctx, fn: fn, lead: make(chan struct{}, 1), done: make(chan struct{})}
	q := &d.writes
	q.mu.Lock()
	q.pending = append(q.pending, r)
	leader := !q.leading
	q.leading = true
	q.mu.Unlock()
	if !leader {
		select {
		case <-r.done:
		case <-r.lead:
			leader = true
		case <-ctx.Done():
			// Still queued: it leaves, as a call waiting for the write
			// connection did (a WithTx inside a WithTx function ends
			// here instead of waiting for the transaction it is in).
			if q.leave(r) {
				return d.wrap("begin", ctx.Err())
			}
			// Taken into a group already: its outcome is that group'd.
			select {
			case <-r.done:
			case <-r.lead:
				leader = true
			}
		}
	}
	if leader {
		d.lead(w, r)
	}
	if r.panicked != nil {
		panic(r.panicked)
	}
	return r.err
}

// leave takes r out of the queue if no leader has taken it into a group
// yet; the leader's role, if it had just been handed to r, goes to the next
// request.
func (q *writeQueue) leave(r *writeReq) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	i := slices.Index(q.pending, r)
	if i < 0 {
		return false
	}
	q.pending = slices.Delete(q.pending, i, i+1)
	select {
	case <-r.lead:
		q.handOnLocked()
	default:
	}
	return true
}

// handOnLocked gives the leader's role to the oldest waiting request, or
// leaves it free when none waits. q.mu is held.
func (q *writeQueue) handOnLocked() {
	if len(q.pending) > 0 {
		q.pending[0].lead <- struct{}{}
	} else {
		q.leading = false
	}
}

// lead runs groups of queued requests until own is done, then passes the
// leader's role to the oldest request still waiting (or leaves it free).
func (d *DB) lead(w *sql.DB, own *writeReq) {
	q := &d.writes
	// Deferred, so that even a panic here leaves the queue a leader.
	defer func() {
		q.mu.Lock()
		q.handOnLocked()
		q.mu.Unlock()
	}()
	for {
		q.mu.Lock()
		n := min(len(q.pending), maxGroup)
		group := q.pending[:n:n]
		q.pending = q.pending[n:]
		q.mu.Unlock()
		if n > 0 {
			if q.grouped != nil {
				q.grouped(n)
			}
			d.commitGroup(w, group)
		}
		select {
		case <-own.done:
			return
		default:
		}
	}
}

// commitGroup runs a group of requests in one transaction and commits it;
// every request is done (its done channel closed) when it returns.
func (d *DB) commitGroup(w *sql.DB, group []*writeReq) {
	defer func() {
		for _, r := range group {
			close(r.done)
		}
	}()
	if len(group) == 1 {
		// Alone: a plain transaction, bound to the caller's context as
		// always.
		r := group[0]
		r.err = d.withTxOn(r.ctx, w, func(tx *Tx) error { return d.runRequest(tx, r) })
		d.committed(r.ctx) // even after a failed commit: it may have landed
		return
	}
	todo := group
	for len(todo) > 0 {
		todo = d.commitShared(w, todo)
	}
}

// commitShared runs todo in one transaction, each request in a savepoint,
// and commits. It returns the requests still to run, in a new transaction:
// those left when the transaction had worked groupWork, and those after one
// whose failure took the whole transaction with it (SQLite
// rolls a transaction back when a write statement is interrupted, as a
// caller's cancelled context does). The requests that had run in it fail
// with a retryable error (dberr.ErrBusy): nothing of theirs was saved, and their
// functions are not run twice behind their callers' backs.
func (d *DB) commitShared(w *sql.DB, todo []*writeReq) (rest []*writeReq) {
	// The transaction belongs to no one caller: a caller's cancelled
	// context fails that caller's statements, not the others' commit.
	// It waits for the lock as its writers do: as one that is no bulk
	// writer's chunk when any is not (see writeWaiters).
	as := todo[0].ctx
	for _, r := range todo {
		if !bulk.Is(r.ctx) {
			as = r.ctx
			break
		}
	}
	waited := d.waiting(as)
	tx, err := w.BeginTx(context.Background(), nil)
	waited()
	if err != nil {
		for _, r := range todo {
			r.err = d.wrap("begin", err)
		}
		return nil
	}
	var ok []*writeReq
	began := time.Now()
	for i, r := range todo {
		if i > 0 && time.Since(began) >= GroupWork {
			// The rest go in the next transaction.
			rest = todo[i:]
			break
		}
		if err := r.ctx.Err(); err != nil {
			r.err = d.wrap("begin", err)
			continue
		}
		if _, err := tx.Exec(`SAVEPOINT grouped`); err != nil {
			_ = tx.Rollback()
			undone(ok)
			r.err = d.wrap("begin", err)
			return todo[i+1:]
		}
		err := d.runRequest(tx, r)
		if err == nil {
			if _, err = tx.Exec(`RELEASE grouped`); err == nil {
				ok = append(ok, r)
				continue
			}
		}
		r.err = d.wrap("", err)
		_, rerr := tx.Exec(`ROLLBACK TO grouped`)
		if rerr == nil {
			_, rerr = tx.Exec(`RELEASE grouped`)
		}
		if rerr != nil {
			// The savepoint is gone with the whole transaction.
			_ = tx.Rollback()
			undone(ok)
			return todo[i+1:]
		}
	}
	err = tx.Commit()
	for _, r := range ok {
		d.committed(r.ctx) // even after a failed commit: it may have landed
	}
	if err != nil {
		for _, r := range ok {
			r.err = d.wrap("commit", err)
		}
	}
	return rest
}

// AgainIfUndone runs write, and again (three times in all at most) while
// it is undone with a transaction it shared (dberr.ErrUndone: nothing of it was
// saved, so running it again cannot write it twice).
func AgainIfUndone(write func() error) error {
	var err error
	for range 3 {
		if err = write(); !errors.Is(err, dberr.ErrUndone) {
			break
		}
	}
	return err
}

// undone fails the requests whose work a lost transaction took with it.
func undone(ran []*writeReq) {
	for _, r := range ran {
		r.err = dberr.ErrUndone
	}
}

// runRequest runs one request's function in tx. A panic in fn becomes the
// request's (the caller panics with it); the group goes on.
func (d *DB) runRequest(tx *Tx, r *writeReq) (err error) {
	defer func() {
		if p := recover(); p != nil {
			r.panicked = p
			err = fmt.Errorf("panic in a write transaction: %v", p)
		}
	}()
	r.err, r.panicked = nil, nil
	return r.fn(tx)
}
