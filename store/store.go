package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goldtrace/goldtrace/internal/bulk"
	"github.com/goldtrace/goldtrace/internal/dbschema"
	"github.com/goldtrace/goldtrace/store/postgres"
	"github.com/goldtrace/goldtrace/store/sqlite"
)

//go:embed migrations/*.sql migrations_postgres/*.sql
var migrationFiles embed.FS

// Queryer is what both *sql.DB and *sql.Tx offer; query helpers take it so
// they run inside or outside a transaction.
type Queryer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// engine is what the project's queries and rules use of a database engine
// (store/sqlite, store/postgres): the read pool, write
// transactions (grouped, so concurrent writers share a commit), bulk
// writes in paced chunks, error explanation, and the file-level chores
// (check, backup, tuning an import). Nothing of goldtrace's domain is in
// an engine.
type engine interface {
	Path() string
	ReadOnly() bool
	Close() error
	Reader() *sql.DB
	WithTx(ctx context.Context, fn func(tx *sql.Tx) error) error
	WithRelaxedTx(ctx context.Context, fn func(tx *sql.Tx) error) error
	ExecAlone(ctx context.Context, query string, args ...any) error
	Paced(ctx context.Context, pace bulk.Pace, step func(tx *sql.Tx, deadline time.Time) (more bool, err error)) error
	PauseForWaiters(ctx context.Context, last time.Time, yield time.Duration) error
	WritersWaiting(ctx context.Context) bool
	Wrap(op string, err error) error
	BulkTuning(ctx context.Context, cacheMiB int) (restore func())
	Analyze(ctx context.Context, tables ...string)
	LogSize() int64
	Checkpoint(ctx context.Context)
	KeepLogSmall(ctx context.Context, every time.Duration, limit int64)
	CheckPassed(ctx context.Context)
	Backup(ctx context.Context, dest string) error
	WriterOpen() bool
	DataVersion(ctx context.Context, wait time.Duration) (conn any, version int64, ok bool)
	Tables(ctx context.Context) ([]dbschema.Table, error)
	SchemaIn(ctx context.Context, tx *sql.Tx) ([]dbschema.Table, error)
	ResetIdentities(ctx context.Context, tx *sql.Tx, tables []dbschema.Table) error
}

var (
	_ engine = (*sqlite.DB)(nil)
	_ engine = (*postgres.DB)(nil)
)

// Store is goldtrace's database: the project's schema, queries and rules
// over one engine. Reads go through the engine's read pool and never take
// the write lock; writes go through WithTx.
type Store struct {
	db engine
	r  *sql.DB // db.Reader()
	// scans holds a token per read connection a status scan uses.
	scans chan struct{}
	// writes counts the write transactions (labels_fresh.go).
	writes writeCount
	// dataGen and statuses: the status cache (status_cache.go).
	dataGen  atomic.Uint64
	statuses statusCache
	// bodies decodes stored trace bodies (import_body.go).
	bodies bodyDecoders
	// pg: the engine is PostgreSQL, where every statement is a round trip.
	pg bool
	// analyzeOnce: the first LabelTargets has the engine gather the label
	// tables' statistics if they have none (Analyze).
	analyzeOnce sync.Once

	// Now is the clock; tests replace it.
	Now func() time.Time
}

// Options say how Open treats the file.
type Options struct {
	// ReadOnly opens the file for reading only: every write fails with
	// ErrReadOnly. A file the process may not write opens this way too.
	ReadOnly bool
	// NoSchema skips the schema check (goldtrace check reads a damaged
	// file whose schema may not be readable).
	NoSchema bool
	// BusyTimeout is how long a write waits for another process's write
	// lock before failing with ErrBusy (0: 15 s).
	BusyTimeout time.Duration
	// DeferSchema (PostgreSQL): a database without goldtrace's schema is
	// opened without making it; CopyTo makes it in the transaction that
	// fills it, so a copy that fails leaves no table behind. A SQLite file
	// gets its schema on open (a copy removes a new file when it fails).
	DeferSchema bool
	// Upgrading, when set, is told (one line) before a long schema upgrade
	// of an existing database begins.
	Upgrading func(line string)
	// Password is a PostgreSQL database's password when the caller took it
	// out of the DSN (so no message shows it); otherwise the server's
	// password comes from PGPASSWORD or ~/.pgpass, as libpq's does.
	Password string
}

// IsPostgres reports whether path names a PostgreSQL database
// (postgres://…) rather than a SQLite file.
func IsPostgres(path string) bool { return postgres.IsDSN(path) }

// RedactDSN returns a PostgreSQL DSN without its password, and the
// password ("" when it has none); a file path is returned as it is.
func RedactDSN(path string) (clean, password string) {
	if !IsPostgres(path) {
		return path, ""
	}
	return postgres.Redact(path)
}

// ProjectExists reports whether a goldtrace project is at path: a file
// there, or the schema in a PostgreSQL database (connecting to find out,
// without creating anything).
func ProjectExists(ctx context.Context, path string, password string) (bool, error) {
	if !IsPostgres(path) {
		_, err := os.Stat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return err == nil, err
	}
	db, err := postgres.Open(ctx, path, postgres.Options{NoSchema: true, ReadOnly: true, Password: password})
	if err != nil {
		return false, err
	}
	defer db.Close()
	return db.HasSchema(ctx)
}

// scanConns is how many of the read pool's connections whole-table scans
// may hold at once (bulkScans), so the rest stay free for the short reads
// a screen makes on every item, however many status commands run.
const scanConns = sqlite.ReadConns / 2

// Open opens (creating if needed) the database at path and brings its schema
// up to date.
func Open(ctx context.Context, path string) (*Store, error) {
	return OpenWith(ctx, path, Options{})
}

// OpenWith opens the database at path. A file that does not exist is
// created unless opt.ReadOnly.
func OpenWith(ctx context.Context, path string, opt Options) (*Store, error) {
	s := &Store{scans: make(chan struct{}, scanConns), Now: func() time.Time { return time.Now().UTC() }}
	if IsPostgres(path) {
		migrations, err := fs.Sub(migrationFiles, "migrations_postgres")
		if err != nil {
			return nil, err
		}
		db, err := postgres.Open(ctx, path, postgres.Options{ReadOnly: opt.ReadOnly, NoSchema: opt.NoSchema, DeferSchema: opt.DeferSchema,
			Password: opt.Password, Migrations: migrations, Committed: s.committed, BusyTimeout: opt.BusyTimeout, Upgrading: opt.Upgrading,
			Versioned: !opt.NoSchema, Unchanged: func(ctx context.Context) bool { return ctx.Value(statusUnchangedKey{}) != nil }})
		if err != nil {
			return nil, err
		}
		db.Now = func() time.Time { return s.Now() }
		s.db, s.r, s.pg = db, db.Reader(), true
		return s, nil
	}
	migrations, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	db, err := sqlite.Open(ctx, path, sqlite.Options{ReadOnly: opt.ReadOnly, NoSchema: opt.NoSchema,
		BusyTimeout: opt.BusyTimeout, Migrations: migrations, Committed: s.committed, Upgrading: opt.Upgrading})
	if err != nil {
		return nil, err
	}
	db.Now = func() time.Time { return s.Now() }
	s.db, s.r = db, db.Reader()
	return s, nil
}

// committed is told of every write that ended: one that may have changed
// what a status reads invalidates the status cache.
func (s *Store) committed(ctx context.Context) {
	if ctx.Value(statusUnchangedKey{}) == nil {
		s.dataChanged()
	}
}

// Path is the database file.
func (s *Store) Path() string { return s.db.Path() }

// ReadOnly reports whether the store refuses every write (opened read-only,
// or the file is not writable).
func (s *Store) ReadOnly() bool { return s.db.ReadOnly() }

// Close closes the engine.
func (s *Store) Close() error { return s.db.Close() }

// Reader is the read pool, for queries that do not write.
func (s *Store) Reader() Queryer { return s.r }

// WithTx runs fn in one write transaction, committing when fn returns nil
// and rolling back otherwise, and returns once that is done. An audit
// entry ctx carries (WithAudit) is written in the same transaction, and an
// SSH actor's key is checked there to be still theirs (ErrRevoked): first
// on SQLite, with the audit entry on PostgreSQL (one round trip fewer).
// Concurrent calls may share a transaction and its commit (the engine's
// group commit): each fn then runs in a savepoint of its own, so one that
// fails rolls back only itself; one undone with the transaction it shared
// fails with ErrUndone (an ErrBusy: nothing of it was saved, try again).
func (s *Store) WithTx(ctx context.Context, fn func(tx *Tx) error) error {
	err := s.db.WithTx(ctx, func(tx *Tx) error {
		defer s.writes.ended()
		if s.pg {
			if err := fn(tx); err != nil {
				return err
			}
			return s.writeAuditOfKeyStillTheirs(ctx, tx)
		}
		if err := keyStillTheirs(ctx, tx); err != nil {
			return err
		}
		if err := fn(tx); err != nil {
			return err
		}
		return s.writePendingAudit(ctx, tx)
	})
	if err == nil {
		auditCommitted(ctx)
	}
	return err
}

// withTxAgainIfUndone is WithTx for the last, one-statement step of a
// bulk write (a batch or a dataset version made visible): when a grouped
// neighbour's interruption undoes it, it runs again instead of failing, and
// so removing, the whole bulk write. fn must be safe to run again after an
// undone attempt.
func (s *Store) withTxAgainIfUndone(ctx context.Context, fn func(tx *Tx) error) error {
	return sqlite.AgainIfUndone(func() error { return s.WithTx(ctx, fn) })
}

// wrap turns a failure of the database into a *dberr.DBError naming it; other
// errors become the sentinels where one fits (ErrConflict, ErrImmutable).
func (s *Store) wrap(op string, err error) error { return s.db.Wrap(op, err) }

// now formats the store clock for TEXT timestamp columns.
func (s *Store) now() string { return s.Now().UTC().Format(time.RFC3339Nano) }

// Tx is a write transaction handed to WithTx's function.
type Tx = sql.Tx
