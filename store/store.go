package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Queryer is what both *sql.DB and *sql.Tx offer; query helpers take it so
// they run inside or outside a transaction.
type Queryer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Store is goldtrace's database. Reads go through a pool of read-only
// connections and never take the write lock. The write pool has one
// connection, opened on the first write, and begins every transaction
// IMMEDIATE, so concurrent writers (other processes included) queue on
// SQLite's busy timeout instead of failing.
type Store struct {
	r        *sql.DB
	path     string
	readOnly bool // no write is ever attempted (Options.ReadOnly or a read-only file)
	roReason string

	wmu  sync.Mutex
	w    *sql.DB // nil until the first write
	busy time.Duration
	// writes queues concurrent WithTx calls for group commit.
	writes writeQueue
	// scans holds a token per read connection a status scan uses.
	scans chan struct{}
	// dataGen and statuses: the status cache (status_cache.go).
	dataGen  atomic.Uint64
	statuses statusCache
	// bodies decodes stored trace bodies (import_body.go).
	bodies bodyDecoders
	// waiters: who waits for the write lock (write_waiters.go).
	waiters writeWaiters

	// Now is the clock; tests replace it.
	Now func() time.Time
}

// Options say how Open treats the file.
type Options struct {
	// ReadOnly opens the file for reading only (mode=ro, or immutable when
	// SQLite cannot share the file read-only): every write fails with
	// ErrReadOnly. A file the process may not write opens this way too.
	ReadOnly bool
	// NoSchema skips the schema check (goldtrace check reads a damaged
	// file whose schema may not be readable).
	NoSchema bool
	// BusyTimeout is how long a write waits for another process's write
	// lock before failing with ErrBusy (0: 15 s).
	BusyTimeout time.Duration
}

// readConns is the size of the read pool, scanConns how many of its
// connections whole-table scans may hold at once.
const (
	readConns = 8
	scanConns = 4
)

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

// Open opens (creating if needed) the database at path and brings its schema
// up to date.
func Open(ctx context.Context, path string) (*Store, error) {
	return OpenWith(ctx, path, Options{})
}

// OpenWith opens the database at path. The schema version is read without
// a lock; migrations (the only write on open) run only when some are
// missing. A file that does not exist is created unless opt.ReadOnly.
func OpenWith(ctx context.Context, path string, opt Options) (*Store, error) {
	s := &Store{path: path, readOnly: opt.ReadOnly, busy: opt.BusyTimeout, scans: make(chan struct{}, scanConns),
		Now: func() time.Time { return time.Now().UTC() }}
	if s.busy <= 0 {
		s.busy = busyTimeout
	}
	if opt.ReadOnly {
		s.roReason = "opened read-only"
	}
	_, statErr := os.Stat(path)
	exists := statErr == nil
	if !exists && !errors.Is(statErr, fs.ErrNotExist) {
		return nil, &DBError{Path: path, Op: "open", Kind: ErrUnavailable, Err: statErr}
	}
	if !exists && opt.ReadOnly {
		return nil, &DBError{Path: path, Op: "open", Kind: ErrUnavailable, Err: errors.New("no such file")}
	}
	if exists && !opt.ReadOnly && !writable(path) {
		s.readOnly, s.roReason = true, "the file is read-only"
	}
	if !exists {
		// A new file: the writer creates it and its schema.
		if _, err := s.writer(ctx); err != nil {
			return nil, err
		}
	}
	if err := s.openReaders(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if opt.NoSchema || !exists {
		return s, nil
	}
	pending, err := s.pendingMigrations(ctx)
	if err != nil {
		s.Close()
		return nil, err
	}
	if len(pending) > 0 {
		if s.readOnly {
			s.Close()
			return nil, fmt.Errorf("database %s needs a schema upgrade (%s) but %s: open it once where it can be written", path, pending[0].name, s.roReason)
		}
		if _, err := s.writer(ctx); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
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
func (s *Store) openReaders(ctx context.Context) error {
	open := func(d string) (*sql.DB, error) {
		r, err := sql.Open("sqlite", d)
		if err != nil {
			return nil, err
		}
		// Status scans run on at most scanConns connections at once
		// (bulkScans), so the rest stay free for the short reads a screen
		// makes on every item, however many status commands run.
		r.SetMaxOpenConns(readConns)
		r.SetMaxIdleConns(readConns) // keep them open between calls
		var n int
		if err := r.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master`).Scan(&n); err != nil {
			r.Close()
			return nil, err
		}
		return r, nil
	}
	var r *sql.DB
	var err error
	if s.readOnly {
		r, err = open(dsnReadOnly(s.path, false))
		if err != nil {
			// mode=ro needs the -shm file SQLite shares between
			// readers of a WAL database; when it cannot create one, the
			// file is read as it stands.
			r, err = open(dsnReadOnly(s.path, true))
		}
	} else {
		r, err = open(dsn(s.path, false, s.busy))
	}
	if err != nil {
		return s.wrap("open", err)
	}
	s.r = r
	return nil
}

// writer is the write pool, opened (and the schema migrated, and the daily
// quick check run) on first use.
func (s *Store) writer(ctx context.Context) (*sql.DB, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.w != nil {
		return s.w, nil
	}
	if s.readOnly {
		return nil, &DBError{Path: s.path, Op: "write", Kind: ErrReadOnly, Err: errors.New(s.roReason)}
	}
	w, err := sql.Open("sqlite", dsn(s.path, true, s.busy))
	if err != nil {
		return nil, s.wrap("open", err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, s.wrap("open", err)
	}
	if err := s.migrate(ctx, w); err != nil {
		w.Close()
		var de *DBError
		if errors.As(err, &de) {
			return nil, err
		}
		return nil, fmt.Errorf("migrate %s: %w", s.path, err)
	}
	if err := s.quickCheckIfDue(ctx, w); err != nil {
		w.Close()
		return nil, err
	}
	s.w = w
	return w, nil
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// ReadOnly reports whether the store refuses every write (opened read-only,
// or the file is not writable).
func (s *Store) ReadOnly() bool { return s.readOnly }

// Close closes both pools.
func (s *Store) Close() error {
	var errs []error
	if s.r != nil {
		errs = append(errs, s.r.Close())
	}
	s.wmu.Lock()
	if s.w != nil {
		errs = append(errs, s.w.Close())
		s.w = nil
	}
	s.wmu.Unlock()
	s.waiters.close()
	return errors.Join(errs...)
}

// Reader is the read pool, for queries that do not write.
func (s *Store) Reader() Queryer { return s.r }

// WithTx runs fn in one immediate write transaction, committing when fn
// returns nil and rolling back otherwise, and returns once that is done.
// An audit entry ctx carries (WithAudit) is written in the same
// transaction. Calls from several goroutines at once share a transaction
// and its commit (see group_commit.go): each fn runs in a savepoint of its
// own, so one that fails rolls back only itself. Should SQLite roll the
// shared transaction back under them (a statement interrupted by a
// cancelled context), the ones that had run in it are not run again: they
// fail with ErrUndone (an ErrBusy: nothing of theirs was saved, try again).
func (s *Store) WithTx(ctx context.Context, fn func(tx *Tx) error) error {
	w, err := s.writer(ctx)
	if err != nil {
		return err
	}
	return s.runGrouped(ctx, w, fn, false)
}

// txBeginner is what runs a transaction: the write pool, or one of its
// connections held for longer (withRelaxedTx).
type txBeginner interface {
	BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error)
}

func (s *Store) withTxOn(ctx context.Context, w txBeginner, fn func(tx *Tx) error) error {
	waited := s.waiting(ctx)
	tx, err := w.BeginTx(ctx, nil)
	waited()
	if err != nil {
		return s.wrap("begin", err)
	}
	// However fn ends, a panic included, the transaction does not stay
	// open: it would hold the write connection until ctx ends (and block
	// the release of withRelaxedTx's held one). After Commit it does nothing.
	defer func() { _ = tx.Rollback() }()
	if err := fn(tx); err != nil {
		return s.wrap("", err)
	}
	if err := tx.Commit(); err != nil {
		return s.wrap("commit", err)
	}
	return nil
}

// now formats the store clock for TEXT timestamp columns.
func (s *Store) now() string { return s.Now().UTC().Format(time.RFC3339Nano) }

type migration struct {
	version int
	name    string
	sql     string
}

func loadMigrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		name := e.Name()
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: name must be NNNN_what.sql", name)
		}
		body, err := fs.ReadFile(migrationFiles, "migrations/"+name)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: name, sql: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i := 1; i < len(out); i++ {
		// Two files of one number: the second would count as applied once
		// the first is, and never run.
		if out[i].version == out[i-1].version {
			return nil, fmt.Errorf("migrations %s and %s have the same number", out[i-1].name, out[i].name)
		}
	}
	return out, nil
}

// pendingMigrations reads (no lock) which embedded migrations the file
// lacks. A file written by a newer goldtrace (versions this one does not
// know) is refused.
func (s *Store) pendingMigrations(ctx context.Context) ([]migration, error) {
	ms, err := loadMigrations()
	if err != nil {
		return nil, err
	}
	var tables int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).Scan(&tables); err != nil {
		return nil, s.wrap("read schema", err)
	}
	// recorded is each applied migration's name, by number.
	recorded := map[int]string{}
	if tables > 0 {
		rows, err := s.r.QueryContext(ctx, `SELECT version, name FROM schema_migrations`)
		if err != nil {
			return nil, s.wrap("read schema", err)
		}
		defer rows.Close()
		for rows.Next() {
			var v int
			var name string
			if err := rows.Scan(&v, &name); err != nil {
				return nil, s.wrap("read schema", err)
			}
			recorded[v] = name
		}
		if err := rows.Err(); err != nil {
			return nil, s.wrap("read schema", err)
		}
	}
	known := map[int]bool{}
	var pending []migration
	for _, m := range ms {
		known[m.version] = true
		if name, ok := recorded[m.version]; !ok {
			pending = append(pending, m)
		} else if name != m.name {
			// A development build numbered another migration so; this
			// one's changes were never made.
			return nil, fmt.Errorf("database %s records schema migration %04d as %s, but this goldtrace's is %s: it was made by a development build whose schema differs; re-create it",
				s.path, m.version, name, m.name)
		}
	}
	for v := range recorded {
		if !known[v] {
			return nil, fmt.Errorf("database %s has schema migration %04d, which this goldtrace does not know: it was written by a newer goldtrace", s.path, v)
		}
	}
	return pending, nil
}

// migrate applies, each in its own transaction, the embedded migrations not
// yet recorded in schema_migrations. When none is missing it only reads.
func (s *Store) migrate(ctx context.Context, w *sql.DB) error {
	var tables int
	if err := w.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).Scan(&tables); err != nil {
		return s.wrap("read schema", err)
	}
	if tables == 0 {
		if _, err := w.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT`); err != nil {
			return s.wrap("create schema", err)
		}
	}
	ms, err := loadMigrations()
	if err != nil {
		return err
	}
	applied := map[int]bool{}
	rows, err := w.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return s.wrap("read schema", err)
	}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return s.wrap("read schema", err)
		}
		applied[v] = true
	}
	rows.Close()
	for _, m := range ms {
		if applied[m.version] {
			continue
		}
		if err := s.applyMigration(ctx, w, m); err != nil {
			return err
		}
	}
	return nil
}

// foreignKeysOff, on a migration's first line, makes it run with foreign
// keys off (a table rebuild: dropping a table others reference must neither
// fail nor cascade) and checked with foreign_key_check before the commit.
const foreignKeysOff = "-- migrate: foreign_keys=off"

// applyMigration applies m in one transaction on the write pool w unless it
// is recorded already.
func (s *Store) applyMigration(ctx context.Context, w *sql.DB, m migration) error {
	fkOff := strings.HasPrefix(m.sql, foreignKeysOff)
	if fkOff {
		// PRAGMA foreign_keys is a no-op inside a transaction, so it is set
		// on the write pool's one connection before the transaction begins
		// (and checked inside it).
		if _, err := w.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
			return fmt.Errorf("%s: %w", m.name, err)
		}
		defer w.ExecContext(ctx, `PRAGMA foreign_keys = ON`)
	}
	return s.withTxOn(ctx, w, func(tx *Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
		if fkOff {
			var on int
			if err := tx.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&on); err != nil || on != 0 {
				return fmt.Errorf("%s: foreign keys could not be turned off for a table rebuild", m.name)
			}
		}
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("%s: %w", m.name, err)
		}
		if fkOff {
			var table string
			err := tx.QueryRowContext(ctx, `SELECT "table" FROM pragma_foreign_key_check LIMIT 1`).Scan(&table)
			if err == nil {
				return fmt.Errorf("%s: the rebuild left a broken reference in table %s", m.name, table)
			} else if !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("%s: %w", m.name, err)
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, ?)`,
			m.version, m.name, s.now())
		return err
	})
}

// Tx is a write transaction handed to WithTx's function.
type Tx = sql.Tx
