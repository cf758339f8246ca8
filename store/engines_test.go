package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/internal/pgtest"
)

// engineNames are the engines a table-driven store test runs on.
var engineNames = []string{"sqlite", "postgres"}

// openEngine opens a fresh store on the named engine with a fixed clock: a
// temp file, or a database of its own on GOLDTRACE_TEST_PG's server (the
// test skips when it is unset).
func openEngine(t testing.TB, engine string) *Store {
	t.Helper()
	path := filepath.Join(t.TempDir(), "gt.db")
	if engine == "postgres" {
		path = pgtest.Clone(t, "store", migrated)
	}
	st, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	st.Now = func() time.Time { return time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC) }
	t.Cleanup(func() { st.Close() })
	return st
}

// migrated fills a template database with the store's schema.
func migrated(dsn string) error {
	st, err := Open(context.Background(), dsn)
	if err != nil {
		return err
	}
	return st.Close()
}

// onEngines runs test once per engine, as a subtest named after it.
func onEngines(t *testing.T, test func(t *testing.T, st *Store)) {
	for _, e := range engineNames {
		t.Run(e, func(t *testing.T) { test(t, openEngine(t, e)) })
	}
}

func TestMain(m *testing.M) { pgtest.Main(m) }

// forEngines runs test once per engine, as a subtest named after it,
// given the engine's name: for a test that opens its stores itself
// (openEngine), several of them or one per subtest.
func forEngines(t *testing.T, test func(t *testing.T, engine string)) {
	for _, e := range engineNames {
		t.Run(e, func(t *testing.T) { test(t, e) })
	}
}
