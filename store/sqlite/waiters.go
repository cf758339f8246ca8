package sqlite

import (
	"context"
	"os"
	"sync"
	"time"

	"github.com/goldtrace/goldtrace/internal/bulk"
)

// A bulk writer (an import, a sample, an export) leaves the write lock free
// between its chunks so that a reviewer's submit, waiting on its busy
// timeout, gets in. SQLite says nothing of who waits, so every write of
// every goldtrace process says it, on a file beside the database
// (DB-wait): while a transaction of this process waits to begin, the
// process holds a shared lock on it (flock). A bulk writer then pauses
// after a chunk while someone holds that lock, until that writer is in,
// and alone goes on at once. Bulk writers' own transactions do not say
// they wait: two bulk writers do not pause for each other, and one that
// has paused does not race a reviewer for the lock. On systems without
// flock, and whenever the file cannot be opened, a bulk writer always
// pauses its whole yield, as SQLite's busy handler needs.
type writeWaiters struct {
	once  sync.Once
	mu    sync.Mutex
	n     int      // this process's transactions waiting to begin
	mark  *os.File // holds the shared lock while n > 0
	probe *os.File // tries the exclusive lock: it fails while anyone waits
}

func (ww *writeWaiters) open(path string) {
	ww.once.Do(func() {
		// Read-only is enough for flock, and lets a user who may write the
		// database but not this file (made by another) still take part.
		open := func() *os.File {
			f, err := os.OpenFile(path+"-wait", os.O_RDONLY|os.O_CREATE, 0o666)
			if err != nil {
				return nil
			}
			return f
		}
		if ww.mark, ww.probe = open(), open(); ww.mark == nil || ww.probe == nil {
			ww.close()
		}
	})
}

func (ww *writeWaiters) close() {
	ww.mu.Lock()
	defer ww.mu.Unlock()
	ww.closeLocked()
}

func (ww *writeWaiters) closeLocked() {
	for _, f := range []**os.File{&ww.mark, &ww.probe} {
		if *f != nil {
			(*f).Close()
			*f = nil
		}
	}
}

// waiting marks a transaction of this process as waiting to begin until
// the returned func is called; a bulk writer's (see BulkWrite) is not.
func (d *DB) waiting(ctx context.Context) (done func()) {
	if bulk.Is(ctx) {
		return func() {}
	}
	ww := &d.waiters
	ww.open(d.path)
	ww.mu.Lock()
	defer ww.mu.Unlock()
	if ww.mark == nil {
		return func() {}
	}
	if ww.n == 0 && lockShared(ww.mark) != nil {
		return func() {}
	}
	ww.n++
	return func() {
		ww.mu.Lock()
		defer ww.mu.Unlock()
		if ww.n--; ww.n == 0 && ww.mark != nil {
			unlock(ww.mark)
		}
	}
}

// OthersWaiting reports whether a transaction (of any process, this one
// included) waits to begin; true when it cannot tell.
func (d *DB) OthersWaiting() bool {
	ww := &d.waiters
	ww.open(d.path)
	ww.mu.Lock()
	defer ww.mu.Unlock()
	if ww.probe == nil {
		return true
	}
	free, err := tryLockExclusive(ww.probe)
	if err != nil {
		// No flock here (or not on this file system): no waiter can be
		// seen, from now on (canTell).
		ww.closeLocked()
		return true
	}
	if !free {
		return true
	}
	unlock(ww.probe)
	return false
}

// WritersWaiting is OthersWaiting for a bulk writer that holds the lock:
// whether it should commit now to let a writer in.
func (d *DB) WritersWaiting(context.Context) bool { return d.OthersWaiting() }

// waitPoll is how often a bulk writer's pause looks again whether anyone
// still waits.
const waitPoll = 5 * time.Millisecond

// PauseForWaiters is a bulk writer's pause between two chunks, the last
// of which committed at last: none while no transaction waits to begin,
// else until none does any more, for yield at least when it cannot tell
// (no flock) and for maxPause(yield) at most (a stream of writers does not
// stop the bulk write).
func (d *DB) PauseForWaiters(ctx context.Context, last time.Time, yield time.Duration) error {
	if last.IsZero() {
		return ctx.Err()
	}
	until := last.Add(maxPause(yield))
	for time.Now().Before(until) {
		if !d.OthersWaiting() {
			return ctx.Err()
		}
		if !d.waiters.canTell() {
			until = last.Add(yield)
		}
		if err := sleepUntil(ctx, minTime(until, time.Now().Add(waitPoll))); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// maxPause bounds a bulk writer's pause while writers wait: four yields,
// enough for a writer whose busy handler sleeps 100 ms between tries to
// wake and get in even when another bulk writer's chunk went first.
func maxPause(yield time.Duration) time.Duration { return 4 * yield }

// canTell reports whether waiting writers can be seen here.
func (ww *writeWaiters) canTell() bool {
	ww.mu.Lock()
	defer ww.mu.Unlock()
	return ww.probe != nil
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// sleepUntil waits until t or until ctx ends.
func sleepUntil(ctx context.Context, t time.Time) error {
	wait := time.Until(t)
	if wait <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
