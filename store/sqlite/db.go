package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/goldtrace/goldtrace/internal/dberr"
	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

// DB is one SQLite database file. Reads go through a pool of read-only
// connections and never take the write lock. The write pool has one
// connection, opened on the first write, and begins every transaction
// IMMEDIATE, so concurrent writers (other processes included) queue on
// SQLite's busy timeout instead of failing.
type DB struct {
	r        *sql.DB
	path     string
	readOnly bool // no write is ever attempted (Options.ReadOnly or a read-only file)
	roReason string

	wmu  sync.Mutex
	w    *sql.DB // nil until the first write
	busy time.Duration
	// writes queues concurrent WithTx calls for group commit.
	writes writeQueue
	// waiters: who waits for the write lock (waiters.go).
	waiters writeWaiters
	opt     Options

	// Now is the clock; tests replace it.
	Now func() time.Time
}

// Options say how Open treats the file.
type Options struct {
	// ReadOnly opens the file for reading only (mode=ro, or immutable when
	// SQLite cannot share the file read-only): every write fails with
	// dberr.ErrReadOnly. A file the process may not write opens this way too.
	ReadOnly bool
	// NoSchema skips the schema check (goldtrace check reads a damaged
	// file whose schema may not be readable).
	NoSchema bool
	// BusyTimeout is how long a write waits for another process's write
	// lock before failing with dberr.ErrBusy (0: 15 s).
	BusyTimeout time.Duration
	// Migrations holds the schema's migrations, NNNN_what.sql at its root
	// (migrate.go). The engine keeps its own state (when the file last
	// passed its quick check) in their table store_state(key, value).
	Migrations fs.FS
	// Upgrading, when set, is told before a migration with a notice
	// (migrations.Migration.Notice) upgrades an existing database, with
	// a line that names both.
	Upgrading func(line string)
	// Committed, when set, is called after every write transaction that
	// ran fn under ctx ends (even after a failed commit: it may have
	// landed), with that ctx.
	Committed func(ctx context.Context)
}

// ReadConns is the size of the read pool.
const ReadConns = 8

// busyTimeout is how long a writer waits for another process's write lock.
const busyTimeout = 15 * time.Second

// readerMmap: readers read through their page caches, not a memory map.
// Every connection maps the file on its own, and the kernel maps the pages
// around each one touched (fault-around), so four concurrent scans of a
// 98 MB database (the lead's status) held 250 MB of mappings, counted in
// the process's resident memory, and sample on a 1 GB store 345 MB; read
// with pread they hold 89 MB and 75 MB, for about 15% more CPU time.
const readerMmap = "mmap_size(0)"

func dsn(path string, write bool, busy time.Duration) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout("+strconv.Itoa(int(busy/time.Millisecond))+")")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(FULL)")
	if write {
		q.Set("_txlock", "immediate")
	} else {
		q.Add("_pragma", "query_only(1)")
		q.Add("_pragma", readerMmap)
	}
	return "file:" + path + "?" + q.Encode()
}

// dsnReadOnly opens the file with mode=ro; immutable additionally tells
// SQLite nobody changes the file, so it needs no shared-memory file (a
// read-only directory, a read-only share, a WAL file it cannot create).
func dsnReadOnly(path string, immutable bool) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout("+strconv.Itoa(int(busyTimeout/time.Millisecond))+")")
	q.Add("_pragma", "query_only(1)")
	q.Add("_pragma", readerMmap)
	q.Set("mode", "ro")
	if immutable {
		q.Set("immutable", "1")
	}
	return "file:" + path + "?" + q.Encode()
}

// Open opens the database at path (creating it unless opt.ReadOnly) and
// brings its schema up to date. The schema version is read without a lock;
// migrations (the only write on open) run only when some are missing.
func Open(ctx context.Context, path string, opt Options) (*DB, error) {
	d := &DB{path: path, readOnly: opt.ReadOnly, busy: opt.BusyTimeout, opt: opt,
		Now: func() time.Time { return time.Now().UTC() }}
	if d.busy <= 0 {
		d.busy = busyTimeout
	}
	if opt.ReadOnly {
		d.roReason = "opened read-only"
	}
	_, statErr := os.Stat(path)
	exists := statErr == nil
	if !exists && !errors.Is(statErr, fs.ErrNotExist) {
		return nil, &dberr.DBError{Path: path, Op: "open", Kind: dberr.ErrUnavailable, Err: statErr, Why: statErr.Error()}
	}
	if !exists && opt.ReadOnly {
		return nil, &dberr.DBError{Path: path, Op: "open", Kind: dberr.ErrUnavailable, Err: errors.New("no such file"), Why: "no such file"}
	}
	if exists && !opt.ReadOnly && !writable(path) {
		d.readOnly, d.roReason = true, "the file is read-only"
	}
	if !exists {
		// A new file: the writer creates it and its schema.
		if _, err := d.writer(ctx); err != nil {
			return nil, err
		}
	}
	if err := d.openReaders(ctx); err != nil {
		d.Close()
		return nil, err
	}
	if opt.NoSchema || !exists {
		return d, nil
	}
	pending, err := d.pendingMigrations(ctx)
	if err != nil {
		d.Close()
		return nil, err
	}
	if len(pending) > 0 {
		if d.readOnly {
			d.Close()
			return nil, fmt.Errorf("database %s needs a schema upgrade (%s) but %s: upgrade it first by running any goldtrace command on it where it can be written (goldtrace --db %s status)", path, pending[0].Name, d.roReason, path)
		}
		if _, err := d.writer(ctx); err != nil {
			d.Close()
			return nil, err
		}
	}
	return d, nil
}

// writable reports whether this process may write the file.
func writable(path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return !errors.Is(err, fs.ErrPermission) && !errors.Is(err, syscall.EROFS)
	}
	f.Close()
	return true
}

// openReaders opens the read pool and reads the file once, so a file that
// is not a database, or cannot be opened, fails here with one line.
func (d *DB) openReaders(ctx context.Context) error {
	open := func(d string) (*sql.DB, error) {
		c, err := newCachingConnector(d)
		if err != nil {
			return nil, err
		}
		r := sql.OpenDB(c)
		// The store bounds how many of them whole-table scans may hold,
		// so the rest stay free for the short reads a screen makes.
		r.SetMaxOpenConns(ReadConns)
		r.SetMaxIdleConns(ReadConns) // keep them open between calls
		var n int
		if err := r.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master`).Scan(&n); err != nil {
			r.Close()
			return nil, err
		}
		return r, nil
	}
	var r *sql.DB
	var err error
	if d.readOnly {
		r, err = open(dsnReadOnly(d.path, false))
		if err != nil {
			// mode=ro needs the -shm file SQLite shares between
			// readers of a WAL database; when it cannot create one, the
			// file is read as it stands.
			r, err = open(dsnReadOnly(d.path, true))
		}
	} else {
		r, err = open(dsn(d.path, false, d.busy))
	}
	if err != nil {
		return d.wrap("open", err)
	}
	d.r = r
	return nil
}

// writer is the write pool, opened (and the schema migrated, and the daily
// quick check run) on first use.
func (d *DB) writer(ctx context.Context) (*sql.DB, error) {
	d.wmu.Lock()
	defer d.wmu.Unlock()
	if d.w != nil {
		return d.w, nil
	}
	if d.readOnly {
		return nil, &dberr.DBError{Path: d.path, Op: "write", Kind: dberr.ErrReadOnly, Err: errors.New(d.roReason), Why: d.roReason}
	}
	c, err := newCachingConnector(dsn(d.path, true, d.busy))
	if err != nil {
		return nil, d.wrap("open", err)
	}
	w := sql.OpenDB(c)
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, d.wrap("open", err)
	}
	if err := d.migrate(ctx, w); err != nil {
		w.Close()
		var de *dberr.DBError
		if errors.As(err, &de) {
			return nil, err
		}
		return nil, fmt.Errorf("migrate %s: %w", d.path, err)
	}
	if err := d.quickCheckIfDue(ctx, w); err != nil {
		w.Close()
		return nil, err
	}
	d.w = w
	return w, nil
}

// Path is the database file.
func (d *DB) Path() string { return d.path }

// ReadOnly reports whether the store refuses every write (opened read-only,
// or the file is not writable).
func (d *DB) ReadOnly() bool { return d.readOnly }

// Close closes both pools.
func (d *DB) Close() error {
	var errs []error
	if d.r != nil {
		errs = append(errs, d.r.Close())
	}
	d.wmu.Lock()
	if d.w != nil {
		errs = append(errs, d.w.Close())
		d.w = nil
	}
	d.wmu.Unlock()
	d.waiters.close()
	return errors.Join(errs...)
}

// Reader is the read pool, for queries that do not write.
func (d *DB) Reader() *sql.DB { return d.r }

// WithTx runs fn in one immediate write transaction, committing when fn
// returns nil and rolling back otherwise, and returns once that is done.
// Calls from several goroutines at once share a transaction
// and its commit (see group_commit.go): each fn runs in a savepoint of its
// own, so one that fails rolls back only itself. Should SQLite roll the
// shared transaction back under them (a statement interrupted by a
// cancelled context), the ones that had run in it are not run again: they
// fail with dberr.ErrUndone (an ErrBusy: nothing of theirs was saved, try again).
func (d *DB) WithTx(ctx context.Context, fn func(tx *Tx) error) error {
	w, err := d.writer(ctx)
	if err != nil {
		return err
	}
	return d.runGrouped(ctx, w, fn)
}

// committed tells Options.Committed that a write under ctx has ended.
func (d *DB) committed(ctx context.Context) {
	if d.opt.Committed != nil {
		d.opt.Committed(ctx)
	}
}

// txBeginner is what runs a transaction: the write pool, or one of its
// connections held for longer (withRelaxedTx).
type txBeginner interface {
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}

func (d *DB) withTxOn(ctx context.Context, w txBeginner, fn func(tx *Tx) error) error {
	waited := d.waiting(ctx)
	tx, err := w.BeginTx(ctx, nil)
	waited()
	if err != nil {
		return d.wrap("begin", err)
	}
	// However fn ends, a panic included, the transaction does not stay
	// open: it would hold the write connection until ctx ends (and block
	// the release of withRelaxedTx's held one). After Commit it does nothing.
	defer func() { _ = tx.Rollback() }()
	if err := fn(tx); err != nil {
		return d.wrap("", err)
	}
	if err := tx.Commit(); err != nil {
		return d.wrap("commit", err)
	}
	return nil
}

// now formats the clock for TEXT timestamp columns.
func (d *DB) now() string { return d.Now().UTC().Format(time.RFC3339Nano) }

// Tx is a write transaction handed to WithTx's function.
type Tx = sql.Tx

// WriterOpen reports whether the write connection has been opened (a
// one-shot command that only reads never opens it).
func (d *DB) WriterOpen() bool {
	d.wmu.Lock()
	defer d.wmu.Unlock()
	return d.w != nil
}

// DataVersion reads SQLite's data_version on the write connection: it
// changes whenever another connection (another process) commits, so with
// the connection's identity (conn) it stamps what this process has not
// written itself. The connection is taken only when it is free within
// wait: a reader never waits behind a write transaction (ok is false then,
// and when the write connection is not open).
func (d *DB) DataVersion(ctx context.Context, wait time.Duration) (conn any, version int64, ok bool) {
	d.wmu.Lock()
	w := d.w
	d.wmu.Unlock()
	if w == nil {
		return nil, 0, false
	}
	tctx, cancel := context.WithTimeout(ctx, wait)
	c, err := w.Conn(tctx)
	cancel()
	if err != nil {
		return nil, 0, false
	}
	defer c.Close()
	if err := c.Raw(func(dc any) error { conn = dc; return nil }); err != nil {
		return nil, 0, false
	}
	if err := c.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&version); err != nil {
		return nil, 0, false
	}
	return conn, version, true
}

// Writer is the write pool (opened, and the schema migrated, on first
// use), for statements outside WithTx: a test's fixture, a repair. A write
// through it is neither grouped nor seen waiting by bulk writers.
func (d *DB) Writer(ctx context.Context) (*sql.DB, error) { return d.writer(ctx) }

// Queued is how many WithTx calls wait for their transaction.
func (d *DB) Queued() int {
	d.writes.mu.Lock()
	defer d.writes.mu.Unlock()
	return len(d.writes.pending)
}

// OnGroup, when set, is told the size of each group of WithTx calls that
// share a transaction (tests measure group commit with it).
func (d *DB) OnGroup(fn func(n int)) { d.writes.grouped = fn }
