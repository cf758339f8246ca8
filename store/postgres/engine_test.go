package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/goldtrace/goldtrace/internal/dberr"
	"github.com/goldtrace/goldtrace/internal/pgtest"
)

func TestTranslate(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`SELECT a FROM t WHERE x = ? AND y = ?`, `SELECT a FROM t WHERE x = $1 AND y = $2`},
		{`UPDATE t SET a = ?1 WHERE b = ?2 OR c = ?1`, `UPDATE t SET a = $1 WHERE b = $2 OR c = $1`},
		{`SELECT '?', "a?b", x FROM t WHERE y = ? -- what?` + "\n" + `AND z = ? /* ? */`, `SELECT '?', "a?b", x FROM t WHERE y = $1 -- what?` + "\n" + `AND z = $2 /* ? */`},
		{`SELECT 'it''s ?' WHERE a = ?`, `SELECT 'it''s ?' WHERE a = $1`},
		{`SELECT 1 FROM a x CROSS JOIN items i ON i.id = x.item_id`, `SELECT 1 FROM a x JOIN items i ON i.id = x.item_id`},
		{`SELECT 1 FROM a CROSS JOIN b`, `SELECT 1 FROM a CROSS JOIN b`},
		{`SELECT i.rowid FROM items i INDEXED BY items_sampling WHERE a = ?`, `SELECT i.rowid FROM items i WHERE a = $1`},
		{"SELECT length(CAST(g.calls AS BLOB)) || ':' || g.calls, x'' FROM gold g", "SELECT octet_length(CAST(g.calls AS TEXT)) || ':' || g.calls, '\\x'::bytea FROM gold g"},
		{`SELECT group_concat(DISTINCT a.batch), group_concat(b), group_concat(c, ';') FROM a`, `SELECT string_agg(DISTINCT a.batch, ','), string_agg(b, ','), group_concat(c, ';') FROM a`},
		{`UPDATE t SET data = x'00fF' WHERE a = ?`, `UPDATE t SET data = '\x00fF'::bytea WHERE a = $1`},
	} {
		if got := translate(tc.in); got != tc.want {
			t.Errorf("translate(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestRedact(t *testing.T) {
	clean, pw := Redact("postgres://gt:hunter2@db.example:5433/proj?sslmode=require")
	if pw != "hunter2" || strings.Contains(clean, "hunter2") || clean != "postgres://gt@db.example:5433/proj?sslmode=require" {
		t.Errorf("Redact = %q, %q", clean, pw)
	}
	if clean, pw := Redact("postgres://gt@db/proj"); clean != "postgres://gt@db/proj" || pw != "" {
		t.Errorf("Redact without a password = %q, %q", clean, pw)
	}
}

var testMigrations = fstest.MapFS{
	"0001_a.sql": {Data: []byte(`CREATE TABLE a (id BIGINT PRIMARY KEY, v TEXT NOT NULL)`)},
	"0002_b.sql": {Data: []byte(`ALTER TABLE a ADD COLUMN w TEXT NOT NULL DEFAULT ''`)},
}

// withPassword is dsn with a password the test server (trust) ignores, so
// that every message can be searched for it.
func withPassword(t *testing.T, dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), "pw-must-not-show")
	return u.String()
}

// Replicas opening a new database at once apply each migration once; a
// database with a migration this build does not know is refused with both
// versions named.
func TestMigrationsOnceAndNewerSchemaRefused(t *testing.T) {
	ctx := context.Background()
	dsn := withPassword(t, pgtest.DSN(t))
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := Open(ctx, dsn, Options{Migrations: testMigrations})
			if err == nil {
				db.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("concurrent opens: %v", err)
	}
	db, err := Open(ctx, dsn, Options{Migrations: testMigrations})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("schema_migrations rows = %d, %v; want 2", n, err)
	}
	if err := db.WithTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO a(id, v, w) VALUES (?, ?, ?)`, 1, "x", "y")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	err = db.WithTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO a(id, v) VALUES (?, ?)`, 1, "again")
		return err
	})
	if !errors.Is(Classify(err), dberr.ErrConflict) {
		t.Errorf("duplicate key: %v, want ErrConflict", err)
	}
	if _, err := db.Reader().ExecContext(ctx, `INSERT INTO schema_migrations VALUES (7, '0007_future.sql', 'x')`); err != nil {
		t.Fatal(err)
	}
	_, err = Open(ctx, dsn, Options{Migrations: testMigrations})
	if err == nil || !strings.Contains(err.Error(), "0007") || !strings.Contains(err.Error(), "0002") || !strings.Contains(err.Error(), "newer goldtrace") {
		t.Errorf("open of a newer schema: %v", err)
	}
	if err != nil && strings.Contains(err.Error(), "pw-must-not-show") {
		t.Errorf("the password shows: %v", err)
	}
}

// Failing to connect is one line naming the host and the database, never
// the password, and creates nothing.
func TestOpenFailuresAreOneLine(t *testing.T) {
	ctx := context.Background()
	refused := "postgres://gt:pw-must-not-show@127.0.0.1:1/proj?sslmode=disable&connect_timeout=5"
	cases := []struct{ dsn, want string }{
		{refused, "no PostgreSQL server answers at 127.0.0.1 port 1 (connection refused)"},
		{"postgres://gt:pw-must-not-show@127.0.0.1:1/proj?sslmode=nonsense", "not a valid postgres:// DSN"},
	}
	if admin := os.Getenv(pgtest.Env); admin != "" {
		u, err := url.Parse(withPassword(t, admin))
		if err != nil {
			t.Fatal(err)
		}
		u.Path = "/gt_no_such_database"
		cases = append(cases, struct{ dsn, want string }{u.String(), `database "gt_no_such_database" does not exist on`})
	} else {
		t.Log(pgtest.Env + " is not set: the missing-database case is not tried")
	}
	for _, tc := range cases {
		_, err := Open(ctx, tc.dsn, Options{Migrations: testMigrations})
		if err == nil {
			t.Errorf("open %s succeeded", tc.dsn)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.want) || strings.Contains(msg, "pw-must-not-show") || strings.Contains(msg, "\n") {
			t.Errorf("open %s: %q, want one line with %q and no password", tc.dsn, msg, tc.want)
		}
		if !errors.Is(err, dberr.ErrUnavailable) {
			t.Errorf("open %s: %v is not ErrUnavailable", tc.dsn, err)
		}
	}
}

// A server lost after the database opened (the network goes, the server
// stops): every read and write of the pool fails in one line naming the
// host and the database, never in pgx's words, never with the password.
func TestLostServerIsOneLine(t *testing.T) {
	ctx := context.Background()
	u, err := url.Parse(withPassword(t, pgtest.DSN(t)))
	if err != nil {
		t.Fatal(err)
	}
	// The pool reaches the server through a proxy of the test's own, and
	// loses it when the proxy stops.
	server := u.Host
	var mu sync.Mutex
	var conns []net.Conn
	ln := pgtest.Forward(t, server, func(c, s net.Conn) {
		mu.Lock()
		conns = append(conns, c, s)
		mu.Unlock()
		go func() { _, _ = io.Copy(s, c); s.Close() }()
		_, _ = io.Copy(c, s)
		c.Close()
	})
	u.Host = ln.Addr().String()
	db, err := Open(ctx, u.String(), Options{Migrations: testMigrations})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM a`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	ln.Close()
	mu.Lock()
	for _, c := range conns {
		c.Close()
	}
	mu.Unlock()
	port := ln.Addr().(*net.TCPAddr).Port
	for _, op := range []struct {
		name string
		do   func() error
	}{
		{"read", func() error { return db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM a`).Scan(&n) }},
		{"query", func() error {
			rows, err := db.Reader().QueryContext(ctx, `SELECT id FROM a WHERE v = ?`, "x")
			if err == nil {
				rows.Close()
			}
			return err
		}},
		{"write", func() error {
			return db.WithTx(ctx, func(tx *Tx) error {
				_, err := tx.ExecContext(ctx, `INSERT INTO a(id, v) VALUES (?, ?)`, 9, "x")
				return err
			})
		}},
	} {
		err := op.do()
		msg := fmt.Sprint(err)
		// A connection of the pool that broke, or a new one refused.
		want := fmt.Sprintf("127.0.0.1 port %d", port)
		if !errors.Is(err, dberr.ErrUnavailable) || !strings.Contains(msg, want) || !strings.Contains(msg, u.Path) ||
			!strings.Contains(msg, "(connection refused)") && !strings.Contains(msg, "failed") ||
			strings.Contains(msg, "pw-must-not-show") || strings.Contains(msg, "\n") || strings.Contains(msg, server) {
			t.Errorf("%s without a server: %q, want one line with %q and the database", op.name, msg, want)
		}
	}
}

// A write waits for the writers' lock another session holds at most the
// busy timeout, then fails in one line with ErrBusy, nothing written.
func TestWriteLockHeldTooLongIsBusy(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	db, err := Open(ctx, dsn, Options{Migrations: testMigrations, BusyTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	holder, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close(ctx)
	if _, err := holder.Exec(ctx, `SELECT pg_advisory_lock($1)`, int64(writeLock)); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	err = db.WithTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO a(id, v) VALUES (?, ?)`, 1, "x")
		return err
	})
	if !errors.Is(err, dberr.ErrBusy) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "is busy") {
		t.Fatalf("write while another session holds the lock: %v", err)
	}
	if waited := time.Since(began); waited > 5*time.Second {
		t.Errorf("waited %s for a 300 ms busy timeout", waited)
	}
	if _, err := holder.Exec(ctx, `SELECT pg_advisory_unlock($1)`, int64(writeLock)); err != nil {
		t.Fatal(err)
	}
	if err := db.ExecAlone(ctx, `INSERT INTO a(id, v) VALUES (?, ?)`, 1, "x"); err != nil {
		t.Fatalf("write once the lock is free: %v", err)
	}
}

// Writes scoped to different keys run at once; one scoped to the same key
// as a write in progress, and an unscoped one, wait for it to end.
func TestScopedWritesRunBesideOthersKeys(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, pgtest.DSN(t), Options{Migrations: testMigrations})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	insert := func(ctx context.Context, id int) error {
		return db.WithTx(ctx, func(tx *Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO a(id, v) VALUES (?, 'x')`, id)
			return err
		})
	}
	holding, release := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- db.WithTx(Scoped(ctx, "item 1"), func(tx *Tx) error {
			close(holding)
			<-release
			_, err := tx.ExecContext(ctx, `INSERT INTO a(id, v) VALUES (1, 'x')`)
			return err
		})
	}()
	<-holding
	beside, cancel := context.WithTimeout(Scoped(ctx, "item 2"), 5*time.Second)
	defer cancel()
	if err := insert(beside, 2); err != nil {
		t.Fatalf("a write scoped to another key, while one to item 1 is open: %v", err)
	}
	if err := insert(Scoped(ctx, ""), 3); err != nil {
		t.Fatalf("an append-only write, while one to item 1 is open: %v", err)
	}
	waiters := make(chan error, 2)
	go func() { waiters <- insert(Scoped(ctx, "item 1"), 4) }()
	go func() { waiters <- insert(ctx, 5) }()
	select {
	case err := <-waiters:
		t.Fatalf("a write to the same key or an unscoped one ended (%v) while a write to item 1 was open", err)
	case <-time.After(300 * time.Millisecond):
	}
	close(release)
	for range 2 {
		if err := <-waiters; err != nil {
			t.Fatal(err)
		}
	}
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM a`).Scan(&n); err != nil || n != 5 {
		t.Fatalf("%d rows (%v), want 5", n, err)
	}
}

// The data version is the sum of its shards and of the single row that
// databases written before the shards have: every write moves it by one,
// whichever connection it ran on.
func TestDataVersionCountsEveryWrite(t *testing.T) {
	ctx := context.Background()
	migrations := fstest.MapFS{
		"0001_a.sql": testMigrations["0001_a.sql"],
		"0002_state.sql": {Data: []byte(`CREATE TABLE store_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
			INSERT INTO store_state VALUES ('data_version', '5')`)},
	}
	db, err := Open(ctx, pgtest.DSN(t), Options{Migrations: migrations, Versioned: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var wg sync.WaitGroup
	errs := make([]error, 12)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = db.WithTx(Scoped(ctx, fmt.Sprint("item ", i)), func(tx *Tx) error {
				_, err := tx.ExecContext(ctx, `INSERT INTO a(id, v) VALUES (?, 'x')`, i)
				return err
			})
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if _, v, ok := db.DataVersion(ctx, time.Second); !ok || v != 5+12 {
		t.Fatalf("data version %d (%v), want 17", v, ok)
	}
}

// A bulk writer's pause between chunks lasts while a write, scoped or
// not, waits for the writers' lock, and ends at once when none does (a
// write waiting for another's key lock does not wait for the bulk writer).
func TestPauseForWaitersSeesScopedWaiters(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, pgtest.DSN(t), Options{Migrations: testMigrations})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pause := func() time.Duration {
		began := time.Now()
		if err := db.PauseForWaiters(ctx, began, 400*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		return time.Since(began)
	}
	// hold runs a write under hctx that stays open until release, and a
	// write under wctx that waits for it.
	hold := func(hctx, wctx context.Context) (release func()) {
		holding, done := make(chan struct{}), make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			_ = db.WithTx(hctx, func(tx *Tx) error { close(holding); <-done; return nil })
		}()
		<-holding
		go func() {
			defer wg.Done()
			_ = db.WithTx(wctx, func(tx *Tx) error { return nil })
		}()
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			var n int
			if err := db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
				AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				break
			}
		}
		return func() { close(done); wg.Wait() }
	}
	if took := pause(); took > 200*time.Millisecond {
		t.Errorf("paused %s with no one waiting", took)
	}
	release := hold(ctx, Scoped(ctx, "item 1"))
	if took := pause(); took < 350*time.Millisecond {
		t.Errorf("paused %s while a scoped write waited for the writers' lock, want the 400 ms yield", took)
	}
	release()
	release = hold(Scoped(ctx, "item 1"), Scoped(ctx, "item 1"))
	if took := pause(); took > 200*time.Millisecond {
		t.Errorf("paused %s while a write waited for another's key lock only", took)
	}
	release()
}
