package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/goldtrace/goldtrace/internal/fserr"
	"github.com/goldtrace/goldtrace/store"
)

// Opening the project's database: the CLI, the SSH server and shell
// completion name a database (a file path or a postgres:// DSN) and get an
// App over it; none of them holds the store.

// OpenOptions say how Open treats the database.
type OpenOptions struct {
	// DSN is the database: a SQLite file path or a postgres:// DSN without
	// its password (RedactDSN).
	DSN      string
	ReadOnly bool
	// Password is the PostgreSQL password RedactDSN took out of the DSN.
	Password string
	// MayCreate lets a missing database be created (import, demo, users
	// add, init); otherwise a missing one is an error that says how to
	// make one.
	MayCreate bool
	// Created, when not nil, is called once a missing database was
	// created: a mistyped --db must not quietly start a new project.
	Created func(dsn string)
	// Upgrading, when not nil, is told (one line) before a long schema
	// upgrade of the database begins.
	Upgrading func(line string)
}

// Open opens the project's database for o and returns the App over it;
// closeStore closes the database.
func Open(ctx context.Context, o OpenOptions) (a *App, closeStore func(), err error) {
	missing, err := checkDBPath(o.DSN)
	if err != nil {
		return nil, nil, err
	}
	if IsPostgres(o.DSN) {
		exists, err := ProjectExists(ctx, o.DSN, o.Password)
		if err != nil {
			return nil, nil, err
		}
		missing = !exists
	}
	if missing && !o.MayCreate {
		return nil, nil, fmt.Errorf("no goldtrace database at %s (set --db or GOLDTRACE_DB, or run goldtrace init)", o.DSN)
	}
	st, err := store.OpenWith(ctx, o.DSN, store.Options{ReadOnly: o.ReadOnly, Password: o.Password, Upgrading: o.Upgrading})
	if err != nil {
		if strings.Contains(err.Error(), o.DSN) {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("database %s: %w", o.DSN, err)
	}
	if missing && o.Created != nil {
		o.Created(o.DSN)
	}
	return New(st), func() { st.Close() }, nil
}

// OpenExisting opens the project at dsn read-only, never creating it (shell
// completion asks it for names).
func OpenExisting(ctx context.Context, dsn, password string) (a *App, closeStore func(), err error) {
	if exists, err := ProjectExists(ctx, dsn, password); err != nil || !exists {
		return nil, nil, fmt.Errorf("no goldtrace database at %s to complete from (set --db or GOLDTRACE_DB)", dsn)
	}
	st, err := store.OpenWith(ctx, dsn, store.Options{ReadOnly: true, Password: password})
	if err != nil {
		return nil, nil, fmt.Errorf("complete from %s: %w", dsn, err)
	}
	return New(st), func() { st.Close() }, nil
}

// ProjectExists reports whether the project is there: the file, or the
// schema in a PostgreSQL database (which it connects to, creating nothing).
func ProjectExists(ctx context.Context, dsn, password string) (bool, error) {
	if !IsPostgres(dsn) {
		_, err := os.Stat(dsn)
		return !errors.Is(err, fs.ErrNotExist), nil
	}
	return store.ProjectExists(ctx, dsn, password)
}

// IsPostgres reports whether dsn names a PostgreSQL database
// (postgres://…) rather than a SQLite file.
func IsPostgres(dsn string) bool { return store.IsPostgres(dsn) }

// RedactDSN returns a PostgreSQL DSN without its password, and the
// password ("" when it has none); a file path is returned as it is.
func RedactDSN(dsn string) (clean, password string) { return store.RedactDSN(dsn) }

// ExplainError rewords a raw failure of the database at dsn (a corrupt
// page met by a read, a lock held too long) to name it and say what to do.
func ExplainError(dsn string, err error) error { return store.Explain(dsn, err) }

// KeepWALSmall checkpoints the database's write-ahead log every so often
// so that it stays under limit bytes while a long-running server holds the
// database open; it returns when ctx ends.
func (a *App) KeepWALSmall(ctx context.Context, every time.Duration, limit int64) {
	a.st.KeepWALSmall(ctx, every, limit)
}

// checkDBPath says whether the database file at path is missing (and may
// be created), or why it cannot be a database file: a directory, a parent
// directory that does not exist or is a file. A URL (another engine) is
// left to the store.
func checkDBPath(path string) (missing bool, err error) {
	if strings.Contains(path, "://") {
		return false, nil
	}
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return false, fmt.Errorf("database %s is a directory, not a goldtrace database file (give a file path, e.g. --db %s)",
			path, ShellQuote(filepath.Join(path, "goldtrace.db")))
	case err == nil:
		return false, nil
	case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
		return false, fmt.Errorf("database %s: %w", path, fserr.Bare(err))
	}
	dir := filepath.Dir(path)
	switch di, err := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return true, fmt.Errorf("database %s: directory %s does not exist", path, dir)
	case err != nil:
		return true, fmt.Errorf("database %s: directory %s: %w", path, dir, fserr.Bare(err))
	case !di.IsDir():
		return true, fmt.Errorf("database %s: %s is not a directory", path, dir)
	}
	return true, nil
}

// ShellQuote quotes s for a POSIX shell when it needs it (commands the
// project suggests a user type).
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=@:+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// RecoveryBase is where label screens keep recovery drafts (the drafts a
// failed write leaves, RecoveryPath): beside a SQLite database; for a
// PostgreSQL one, in the user's cache directory, named after its host and
// database.
func RecoveryBase(dbPath string) string {
	if !IsPostgres(dbPath) {
		return dbPath
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	name := "postgres"
	if u, err := url.Parse(dbPath); err == nil {
		name = strings.NewReplacer("/", "_", ":", "_").Replace(u.Host + u.Path)
	}
	dir = filepath.Join(dir, "goldtrace")
	_ = os.MkdirAll(dir, 0o700) // a failure shows when a draft is written there
	return filepath.Join(dir, name)
}
