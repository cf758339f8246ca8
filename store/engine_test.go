package store

import (
	"context"
	"database/sql"
	"io/fs"
	"testing"

	"github.com/goldtrace/goldtrace/store/sqlite"
)

// sqliteDB is the store's engine, for tests that look into it.
func (s *Store) sqliteDB() *sqlite.DB { return s.db.(*sqlite.DB) }

// testW is the engine's write pool, for fixtures written outside WithTx.
func (s *Store) testW(t testing.TB) *sql.DB {
	t.Helper()
	w, err := s.sqliteDB().Writer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// migrationsFS is the store's migrations as the engine reads them.
func migrationsFS(t testing.TB) fs.FS {
	t.Helper()
	f, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		t.Fatal(err)
	}
	return f
}
