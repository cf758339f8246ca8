package postgres

import (
	"context"
	"testing"

	"github.com/goldtrace/goldtrace/internal/pgtest"
)

// Analyze gathers the statistics of a table that has none, and leaves
// alone the names that are not tables of the database.
func TestAnalyzeGathersMissingStatistics(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	db, err := Open(ctx, dsn, Options{Migrations: testMigrations})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
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
