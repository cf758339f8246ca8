package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/internal/pgtest"
)

// Analyze gathers the statistics of a table that has none, and leaves
// alone the names that are not tables of the database.
func TestAnalyzeGathersMissingStatistics(t *testing.T) {
	ctx := context.Background()
	db, _ := openTestDB(t)
	if _, err := db.Reader().ExecContext(ctx, `INSERT INTO a(id, v) SELECT g, 'x' FROM generate_series(1, 5000) g`); err != nil {
		t.Fatal(err)
	}
	tuples := func() float64 {
		var n float64
		if err := db.Reader().QueryRowContext(ctx, `SELECT reltuples FROM pg_class WHERE relname = 'a'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := tuples(); n >= 0 {
		t.Skipf("table a already has statistics (%v rows): autovacuum came first", n)
	}
	db.Analyze(ctx, "a", "no_such_table", `a"; DROP TABLE a; --`)
	if n := tuples(); n != 5000 {
		t.Errorf("after Analyze the planner counts %v rows in a, want 5000", n)
	}
}

// Text holding a NUL character, which SQLite stores and PostgreSQL
// cannot, is refused in one line that says so, not as a bug of goldtrace's.
func TestNULTextIsExplained(t *testing.T) {
	ctx := context.Background()
	db, dsn := openTestDB(t)
	_, err := db.Reader().ExecContext(ctx, `INSERT INTO a(id, v) VALUES (1, $1)`, "bad\x00text")
	if err == nil {
		t.Fatal("PostgreSQL took text with a NUL character")
	}
	for _, e := range []error{Explain(dsn, err), Classify(err)} {
		msg := e.Error()
		if !strings.Contains(msg, "holds a NUL character") || strings.Contains(msg, "bug") || strings.Contains(msg, "SQLSTATE") || strings.Contains(msg, "\n") {
			t.Errorf("explained as %q", msg)
		}
		if !IsNULText(e) {
			t.Errorf("%q no longer carries the server's error", msg)
		}
	}
}

// openTestDB opens a new test database with testMigrations applied,
// closed when the test ends, and gives its DSN.
func openTestDB(t *testing.T) (*DB, string) {
	t.Helper()
	dsn := pgtest.DSN(t)
	db, err := Open(context.Background(), dsn, Options{Migrations: testMigrations})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, dsn
}
