package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"sort"
	"strconv"
	"strings"
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

// Store is goldtrace's database. The write pool has one connection and
// begins every transaction IMMEDIATE, so concurrent writers (other processes
// included) queue on SQLite's busy timeout instead of failing.
type Store struct {
	w    *sql.DB
	r    *sql.DB
	path string
	// Now is the clock; tests replace it.
	Now func() time.Time
}

// busyTimeout is how long a writer waits for another process's write lock.
const busyTimeout = 15 * time.Second

func dsn(path string, write bool) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout("+strconv.Itoa(int(busyTimeout/time.Millisecond))+")")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(FULL)")
	if write {
		q.Set("_txlock", "immediate")
	} else {
		q.Add("_pragma", "query_only(1)")
		// Readers map the file instead of copying pages into each
		// connection's page cache: the pure-Go SQLite allocates (and on
		// close frees, with a syscall each) every cached page separately,
		// which cost the lead's status a third of its time on 100k labels.
		q.Add("_pragma", "mmap_size(1073741824)")
	}
	return "file:" + path + "?" + q.Encode()
}

// Open opens (creating if needed) the database at path and brings its schema
// up to date.
func Open(ctx context.Context, path string) (*Store, error) {
	w, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	s := &Store{w: w, path: path, Now: func() time.Time { return time.Now().UTC() }}
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("open %s: %w", path, friendly(err))
	}
	if err := s.migrate(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("migrate %s: %w", path, err)
	}
	r, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	r.SetMaxOpenConns(4)
	r.SetMaxIdleConns(4) // status scans on 4 at once; keep them open between calls
	s.r = r
	return s, nil
}

// friendly rewords the driver's most common open failure.
func friendly(err error) error {
	if strings.Contains(err.Error(), "out of memory (14)") || strings.Contains(err.Error(), "unable to open") {
		return errors.New("cannot open database file (does its directory exist and is it writable?)")
	}
	return err
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Close closes both pools.
func (s *Store) Close() error {
	var errs []error
	if s.r != nil {
		errs = append(errs, s.r.Close())
	}
	errs = append(errs, s.w.Close())
	return errors.Join(errs...)
}

// Reader is the read pool, for queries that do not write.
func (s *Store) Reader() Queryer { return s.r }

// WithTx runs fn in one immediate write transaction, committing when fn
// returns nil and rolling back otherwise.
func (s *Store) WithTx(ctx context.Context, fn func(tx *Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", classify(err))
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return classify(err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", classify(err))
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
	return out, nil
}

// migrate applies, each in its own transaction, the embedded migrations not
// yet recorded in schema_migrations.
func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.w.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT`); err != nil {
		return friendly(err)
	}
	ms, err := loadMigrations()
	if err != nil {
		return err
	}
	for _, m := range ms {
		if err := s.applyMigration(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// foreignKeysOff, on a migration's first line, makes it run with foreign
// keys off (a table rebuild: dropping a table others reference must neither
// fail nor cascade) and checked with foreign_key_check before the commit.
const foreignKeysOff = "-- migrate: foreign_keys=off"

// applyMigration applies m in one transaction unless it is recorded already.
func (s *Store) applyMigration(ctx context.Context, m migration) error {
	fkOff := strings.HasPrefix(m.sql, foreignKeysOff)
	if fkOff {
		// PRAGMA foreign_keys is a no-op inside a transaction, so it is set
		// on the write pool's one connection before the transaction begins
		// (and checked inside it).
		if _, err := s.w.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
			return fmt.Errorf("%s: %w", m.name, err)
		}
		defer s.w.ExecContext(ctx, `PRAGMA foreign_keys = ON`)
	}
	return s.WithTx(ctx, func(tx *Tx) error {
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
