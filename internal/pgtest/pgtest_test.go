package pgtest

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { Main(m) }

// Clones of a template each start as prepare left it, once prepared, and
// are each a database of their own.
func TestCloneCopiesTheTemplateOnce(t *testing.T) {
	ctx := context.Background()
	prepared := 0
	prepare := func(dsn string) error {
		prepared++
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, `CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('seed')`)
		return err
	}
	var dsns []string
	for range 3 {
		dsns = append(dsns, Clone(t, "test", prepare))
	}
	if prepared != 1 {
		t.Errorf("prepare ran %d times", prepared)
	}
	for i, dsn := range dsns {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM t`).Scan(&n); err != nil || n != 1 {
			t.Errorf("clone %d: %d rows, %v; want the template's one", i, n, err)
		}
		if _, err := conn.Exec(ctx, `INSERT INTO t VALUES ('mine')`); err != nil {
			t.Fatal(err)
		}
		conn.Close(ctx)
	}
}

// The databases of a test process that died are dropped by the next one;
// a live process's are left alone.
func TestPruneDropsTheDeadOnly(t *testing.T) {
	server := admin(t)
	host, _ := os.Hostname()
	dead, live := newName("gt_test_"), newName("gt_test_")
	for name, pid := range map[string]int{dead: 1 << 30, live: os.Getppid()} {
		if err := exec(server, "CREATE DATABASE "+name, fmt.Sprintf("COMMENT ON DATABASE %s IS 'pgtest %s %d'", name, host, pid)); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _ = exec(server, "DROP DATABASE IF EXISTS "+dead, "DROP DATABASE IF EXISTS "+live) })
	prune(server)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for name, want := range map[string]int{dead: 0, live: 1} {
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_database WHERE datname = $1`, name).Scan(&n); err != nil || n != want {
			t.Errorf("database %s: %d, %v; want %d", name, n, err, want)
		}
	}
}
