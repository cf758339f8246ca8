package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
)

// cachedDB is a database of one connection (so every statement meets the
// cache of the one before) with a table t of the numbers 1 to 5.
func cachedDB(t *testing.T) *sql.DB {
	t.Helper()
	c, err := newCachingConnector("file:"+filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(c)
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`CREATE TABLE t(n INTEGER); INSERT INTO t VALUES (1), (2), (3), (4), (5)`); err != nil {
		t.Fatal(err)
	}
	return db
}

func cacheOf(t *testing.T, db *sql.DB) map[string]*cachedStmt {
	t.Helper()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var stmts map[string]*cachedStmt
	conn.Raw(func(dc any) error {
		stmts = dc.(*cachingConn).stmts
		return nil
	})
	return stmts
}

func sum(t *testing.T, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, query string, args ...any) int {
	t.Helper()
	rows, err := q.QueryContext(context.Background(), query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	total := 0
	for rows.Next() {
		var n int
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		total += n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return total
}

// TestStmtCacheSameQueryInsideItsRows: a query run again while its own
// rows are still being read (in one transaction, so on one connection)
// gets a statement of its own, and neither reading is disturbed.
func TestStmtCacheSameQueryInsideItsRows(t *testing.T) {
	db := cachedDB(t)
	const q = `SELECT n FROM t WHERE n >= ? ORDER BY n`
	if got := sum(t, db, q, 1); got != 15 {
		t.Fatalf("sum %d, want 15", got)
	}
	if _, ok := cacheOf(t, db)[q]; !ok {
		t.Fatal("the query's statement was not kept")
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	rows, err := tx.Query(q, 1)
	if err != nil {
		t.Fatal(err)
	}
	var outer []int
	inner := 0
	for rows.Next() {
		var n int
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		outer = append(outer, n)
		inner += sum(t, tx, q, n)
		if _, err := tx.Exec(`UPDATE t SET n = n WHERE n = ?`, n); err != nil {
			t.Fatal(err)
		}
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(outer) != "[1 2 3 4 5]" || inner != 15+14+12+9+5 {
		t.Fatalf("outer %v, inner sums %d", outer, inner)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := sum(t, db, q, 4); got != 9 {
		t.Fatalf("after: sum %d, want 9", got)
	}
}

// TestStmtCacheBounded: more distinct statements than the cache holds all
// run right, and the cache stays within its bound.
func TestStmtCacheBounded(t *testing.T) {
	db := cachedDB(t)
	for i := range 3 * cachedStmts {
		if got := sum(t, db, fmt.Sprintf(`SELECT n FROM t WHERE n > %d`, i%7)); got != max(15-(i%7)*(i%7+1)/2, 0) {
			t.Fatalf("query %d: sum %d", i, got)
		}
	}
	if n := len(cacheOf(t, db)); n > cachedStmts || n == 0 {
		t.Fatalf("%d statements kept, want 1 to %d", n, cachedStmts)
	}
}

// TestStmtCacheSchemaChange: a kept statement sees the table as it is
// after the schema changes (SQLite prepares it again), and scripts and
// PRAGMAs run as the driver runs them.
func TestStmtCacheSchemaChange(t *testing.T) {
	db := cachedDB(t)
	const q = `SELECT * FROM t WHERE n = 2`
	var n int
	if err := db.QueryRow(q).Scan(&n); err != nil || n != 2 {
		t.Fatalf("%d, %v", n, err)
	}
	if _, err := db.Exec(`ALTER TABLE t ADD COLUMN m TEXT DEFAULT 'x'; UPDATE t SET m = 'two' WHERE n = 2`); err != nil {
		t.Fatal(err)
	}
	var m string
	if err := db.QueryRow(q).Scan(&n, &m); err != nil || m != "two" {
		t.Fatalf("after ALTER: %d %q, %v", n, m, err)
	}
	var v int
	for range 2 {
		if err := db.QueryRow(`PRAGMA data_version`).Scan(&v); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := cacheOf(t, db)[`PRAGMA data_version`]; ok {
		t.Fatal("a PRAGMA was kept")
	}
	// An error in a kept statement's run leaves it usable.
	if _, err := db.Exec(`INSERT INTO t(n) VALUES (?)`, 7); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE UNIQUE INDEX t_n ON t(n)`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO t(n) VALUES (?)`, 7); err == nil {
		t.Fatal("a duplicate went in")
	}
	if _, err := db.Exec(`INSERT INTO t(n) VALUES (?)`, 8); err != nil {
		t.Fatalf("after the failure: %v", err)
	}
}

// TestStmtCacheCancelled: a query whose context ends while its rows are
// read frees its statement for the next.
func TestStmtCacheCancelled(t *testing.T) {
	db := cachedDB(t)
	const q = `SELECT n FROM t ORDER BY n`
	ctx, cancel := context.WithCancel(context.Background())
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	rows.Next()
	cancel()
	for rows.Next() {
	}
	rows.Close()
	if got := sum(t, db, q); got != 15 {
		t.Fatalf("sum %d, want 15", got)
	}
	if s, ok := cacheOf(t, db)[q]; !ok || s.busy {
		t.Fatalf("the statement is not kept free: %v %+v", ok, s)
	}
}
