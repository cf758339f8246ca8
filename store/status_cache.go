package store

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// The status cache: the SSH server answers `status` for many clients many
// times a second, and each answer scans the assignments and labels. A
// status is kept, per query (batch and who asks, which decides the view),
// until the data changes. Two things tell that it did:
//   - dataGen, bumped on every commit of this store that can change what
//     status reads (every write transaction except one that only appends
//     an audit entry, so a lead's audited status read does not empty the
//     cache for everyone);
//   - PRAGMA data_version read on the store's write connection, which
//     changes when any other connection commits: another process, or
//     another *Store on the same file. SQLite leaves it unchanged for
//     the connection's own commits, which dataGen counts.
//
// A status is cached under exactly the query it answers, and the view is a
// function of StatusQuery.As: one user's status is never served to another.

// statusCache holds the statuses computed at one stamp, and the
// computations under way.
type statusCache struct {
	mu      sync.Mutex
	stamp   statusStamp
	entries map[StatusQuery]*statusEntry
	flights map[StatusQuery]*statusFlight
	// computed counts the statuses read from the database (tests).
	computed atomic.Int64
}

// statusFlight is the computation of one query's status under way, and the
// one that follows it: everyone who asks while a computation runs waits for
// the next one, which starts when it ends and serves them all. Each of
// them gets a status read after they asked (their own writes are in it),
// and while the data changes under a stream of writes (a team labelling:
// every label changes it) a query's status is computed once at
// a time, however many clients ask for it: the server no longer reads and
// resamples every label once per client.
type statusFlight struct {
	next *statusEntry // asked for while one runs; nil when nobody waits
}

// statusStamp is the state of the data a status was computed at. conn is
// the write connection data_version was read on: a version read on
// another connection (the pool replaced a discarded one) is not
// comparable, and holding it keeps its address from being reused.
type statusStamp struct {
	gen         uint64
	conn        any
	dataVersion int64
}

// statusEntry is one status, done once it is computed.
type statusEntry struct {
	done   chan struct{}
	status Status
	err    error
}

// stampWait is how long a status waits for the write connection to read
// the data's stamp before it gives up the cache for this one read (a
// variable: tests that expect a cached answer wait longer, as a loaded
// machine may not run the free connection's hand-over within 1 ms).
var stampWait = time.Millisecond

// statusCacheSize bounds the entries kept at one stamp (users × batches
// asked about); past it the cache starts over.
const statusCacheSize = 256

// Status reports progress and, for leads, agreement. An unknown As is an
// error (ErrNotFound). While the data is unchanged, the same query gets
// the status computed for it the first time (concurrent callers share one
// computation); the result is shared, so callers must not modify it.
func (s *Store) Status(ctx context.Context, q StatusQuery) (Status, error) {
	stamp, ok := s.statusStamp(ctx)
	if !ok {
		return s.flyStatus(ctx, q)
	}
	c := &s.statuses
	c.mu.Lock()
	if c.entries == nil || c.stamp != stamp || len(c.entries) >= statusCacheSize {
		c.stamp = stamp
		c.entries = map[StatusQuery]*statusEntry{}
	}
	if e, ok := c.entries[q]; ok {
		c.mu.Unlock()
		select {
		case <-e.done:
		case <-ctx.Done():
			return Status{}, ctx.Err()
		}
		if e.err == nil {
			return e.status, nil
		}
		// The computation failed (its caller's context, say): compute
		// our own.
		return s.computeStatus(ctx, q)
	}
	e := &statusEntry{done: make(chan struct{})}
	c.entries[q] = e
	c.mu.Unlock()
	// The status may be read after the stamp moved on: it is kept under
	// the stamp all the same, as one read there and then would have been
	// (whoever finds the stamp unchanged asked before that move).
	e.status, e.err = s.flyStatus(ctx, q)
	close(e.done)
	if e.err != nil {
		c.mu.Lock()
		if c.entries[q] == e {
			delete(c.entries, q)
		}
		c.mu.Unlock()
	}
	return e.status, e.err
}

// statusStamp is the data's current stamp; ok is false when there is none
// to trust (the store has not opened its write connection — a one-shot
// command gains nothing from a cache — or cannot read the version), and
// the status is then computed afresh. It is read before the status is
// computed, so a commit that lands meanwhile makes the entry stale rather
// than the entry hide it.
func (s *Store) statusStamp(ctx context.Context) (statusStamp, bool) {
	if !s.db.WriterOpen() {
		return statusStamp{}, false
	}
	stamp := statusStamp{gen: s.dataGen.Load()}
	var ok bool
	stamp.conn, stamp.dataVersion, ok = s.db.DataVersion(ctx, stampWait)
	return stamp, ok
}

// dataChanged records a commit of this store that may change what status
// reads.
func (s *Store) dataChanged() { s.dataGen.Add(1) }

// beforeFlight runs as a flight's computation starts (tests hold it).
var beforeFlight = func() {}

// flyStatus computes q's status, or waits for the computation that starts
// after the one under way, shared by everyone who asked meanwhile (see
// statusFlight).
func (s *Store) flyStatus(ctx context.Context, q StatusQuery) (Status, error) {
	c := &s.statuses
	c.mu.Lock()
	f, busy := c.flights[q]
	if !busy {
		if c.flights == nil {
			c.flights = map[StatusQuery]*statusFlight{}
		}
		f = &statusFlight{}
		c.flights[q] = f
		c.mu.Unlock()
		beforeFlight()
		st, err := s.computeStatus(ctx, q)
		s.landStatus(context.WithoutCancel(ctx), q, f)
		return st, err
	}
	e := f.next
	if e == nil {
		e = &statusEntry{done: make(chan struct{})}
		f.next = e
	}
	c.mu.Unlock()
	select {
	case <-e.done:
	case <-ctx.Done():
		return Status{}, ctx.Err()
	}
	if e.err != nil {
		// The shared computation failed: try on our own.
		return s.computeStatus(ctx, q)
	}
	return e.status, nil
}

// landStatus ends f's computation under way: the one asked for meanwhile
// starts (on a goroutine of its own, its askers waiting for it), else q's
// flight is over.
func (s *Store) landStatus(ctx context.Context, q StatusQuery, f *statusFlight) {
	c := &s.statuses
	c.mu.Lock()
	defer c.mu.Unlock()
	e := f.next
	if e == nil {
		delete(c.flights, q)
		return
	}
	f.next = nil
	go func() {
		beforeFlight()
		e.status, e.err = s.computeStatus(ctx, q)
		s.landStatus(ctx, q, f)
		close(e.done)
	}()
}
