// Package pgtest gives tests a PostgreSQL database of their own on the
// server GOLDTRACE_TEST_PG names (CI starts a throwaway cluster and sets
// it); tests skip, saying why, when it is unset.
//
// DSN gives an empty database. Clone gives one copied from a template
// database that a test process prepares once (for the store: migrated),
// which costs a CREATE DATABASE … TEMPLATE (a fraction of a second)
// instead of running the migrations in every test. A package whose tests
// call Clone drops its templates at the end with Main:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Env is the variable holding the test server's DSN.
const Env = "GOLDTRACE_TEST_PG"

// admin returns the test server's DSN, skipping the test when it is unset.
func admin(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(Env)
	if dsn == "" {
		t.Skip(Env + " is not set (a postgres:// DSN of a server where tests may create databases): this test needs PostgreSQL")
	}
	if _, err := url.Parse(dsn); err != nil {
		t.Fatalf("%s: %v", Env, err)
	}
	return dsn
}

// withDatabase is the server's DSN naming database name.
func withDatabase(server, name string) string {
	u, _ := url.Parse(server)
	u.Path = "/" + name
	return u.String()
}

func newName(prefix string) string {
	b := make([]byte, 6)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// exec runs statements on the server's maintenance database.
func exec(server string, stmts ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(ctx)
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// create makes database name (from template when not ""), dropped when
// the test ends, and returns its DSN.
func create(t testing.TB, server, name, template string) string {
	t.Helper()
	if err := createDB(server, name, template); err != nil {
		t.Fatalf("%s: create database: %v", Env, err)
	}
	t.Cleanup(func() {
		if err := exec(server, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop test database %s: %v", name, err)
		}
	})
	return withDatabase(server, name)
}

// createDB makes database name, from template when not "".
func createDB(server, name, template string) error {
	stmt := "CREATE DATABASE " + name
	if template != "" {
		stmt += " TEMPLATE " + template
	}
	pruneOnce.Do(func() { prune(server) })
	var err error
	for attempt := 0; attempt < 50; attempt++ {
		// A template is briefly "being accessed" while the backends of the
		// pool that prepared it exit, or while another clone of it starts.
		if err = exec(server, stmt); err == nil || !accessed(err) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		return err
	}
	// Whose it is: a test process that dies before its cleanup (a panic,
	// a kill) leaves it behind, and the next test process on this host
	// drops it (prune).
	return exec(server, "COMMENT ON DATABASE "+name+" IS '"+owner()+"'")
}

// owner is the comment on the databases this process creates.
func owner() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("pgtest %s %d", host, os.Getpid())
}

var pruneOnce sync.Once

// prune drops the test and template databases that test processes of this
// host left behind when they died (their process is gone). Failures are
// ignored: pruning is housekeeping.
func prune(server string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, server)
	if err != nil {
		return
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT datname, shobj_description(oid, 'pg_database') FROM pg_database
		WHERE datname LIKE 'gt\_test\_%' OR datname LIKE 'gt\_tmpl\_%'`)
	if err != nil {
		return
	}
	host, _ := os.Hostname()
	var gone []string
	for rows.Next() {
		var name string
		var comment *string
		if rows.Scan(&name, &comment) != nil || comment == nil {
			continue
		}
		var h string
		var pid int
		if n, _ := fmt.Sscanf(*comment, "pgtest %s %d", &h, &pid); n == 2 && h == host && pid != os.Getpid() && processGone(pid) {
			gone = append(gone, name)
		}
	}
	rows.Close()
	for _, name := range gone {
		_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	}
}

// accessed reports the failure of a CREATE DATABASE whose template has
// sessions (SQLSTATE 55006, object in use).
func accessed(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "55006"
}

// DSN creates an empty database on the test server, drops it when the
// test ends, and returns its DSN. It skips the test when Env is unset.
func DSN(t testing.TB) string {
	t.Helper()
	return create(t, admin(t), newName("gt_test_"), "")
}

// templates are the template databases this process prepared, by key.
// Under Main, clones are made ahead (ahead per key, while tests run) and
// dropped behind (after the test, while the next one runs), so a test
// waits for neither.
var templates struct {
	sync.Mutex
	server string
	byKey  map[string]*template
	main   bool           // Main runs the tests: clones made ahead, dropped behind
	drops  sync.WaitGroup // drops behind still running
	failed []string       // drops behind that failed
}

// ahead is how many clones of a template Main's tests keep ready.
const ahead = 2

type template struct {
	once  sync.Once
	name  string
	err   error
	ready chan clone // made ahead (under Main)
}

type clone struct {
	name string
	err  error
}

// Clone creates a database copied from this process's template database
// for key, drops it when the test ends, and returns its DSN. The first
// Clone of a key makes the template: an empty database that prepare (given
// its DSN) fills, and that no one connects to afterwards. A prepare that
// failed fails every test that asks for its key. It skips the test when
// Env is unset.
func Clone(t testing.TB, key string, prepare func(dsn string) error) string {
	t.Helper()
	server := admin(t)
	templates.Lock()
	if templates.byKey == nil {
		templates.byKey = map[string]*template{}
	}
	templates.server = server
	tm := templates.byKey[key]
	if tm == nil {
		tm = &template{name: newName("gt_tmpl_")}
		templates.byKey[key] = tm
	}
	behind := templates.main
	templates.Unlock()
	tm.once.Do(func() {
		if tm.err = createDB(server, tm.name, ""); tm.err != nil {
			return
		}
		if tm.err = prepare(withDatabase(server, tm.name)); tm.err != nil {
			return
		}
		// Nothing may connect to a template while it is copied.
		if tm.err = exec(server, "ALTER DATABASE "+tm.name+" ALLOW_CONNECTIONS false"); tm.err != nil || !behind {
			return
		}
		tm.ready = make(chan clone, ahead)
		for range ahead {
			go tm.makeAhead(server)
		}
	})
	if tm.err != nil {
		t.Fatalf("%s: template database for %s: %v", Env, key, tm.err)
	}
	if tm.ready == nil {
		return create(t, server, newName("gt_test_"), tm.name)
	}
	c := <-tm.ready
	go tm.makeAhead(server)
	if c.err != nil {
		t.Fatalf("%s: create database: %v", Env, c.err)
	}
	t.Cleanup(func() { dropBehind(server, c.name) })
	return withDatabase(server, c.name)
}

// makeAhead makes one clone of the template for a test to come.
func (tm *template) makeAhead(server string) {
	name := newName("gt_test_")
	err := createDB(server, name, tm.name)
	if err != nil {
		name = ""
	}
	tm.ready <- clone{name: name, err: err}
}

// dropBehind drops a test's database while the next test runs.
func dropBehind(server, name string) {
	templates.drops.Add(1)
	go func() {
		defer templates.drops.Done()
		if err := exec(server, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			templates.Lock()
			templates.failed = append(templates.failed, fmt.Sprintf("drop test database %s: %v", name, err))
			templates.Unlock()
		}
	}()
}

// DropTemplates drops the template databases Clone made in this process,
// and the clones made ahead that no test took.
func DropTemplates() error {
	templates.drops.Wait()
	templates.Lock()
	defer templates.Unlock()
	var errs []string
	errs = append(errs, templates.failed...)
	for key, tm := range templates.byKey {
		if tm.ready != nil {
			for range ahead {
				if c := <-tm.ready; c.name != "" {
					if err := exec(templates.server, "DROP DATABASE IF EXISTS "+c.name+" WITH (FORCE)"); err != nil {
						errs = append(errs, fmt.Sprintf("drop test database %s: %v", c.name, err))
					}
				}
			}
		}
		if err := exec(templates.server, "DROP DATABASE IF EXISTS "+tm.name+" WITH (FORCE)"); err != nil {
			errs = append(errs, fmt.Sprintf("drop template database %s: %v", tm.name, err))
		}
		delete(templates.byKey, key)
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// Main runs a package's tests and then drops the template databases they
// made; a package whose tests call Clone has TestMain call it.
func Main(m *testing.M) {
	templates.Lock()
	templates.main = true
	templates.Unlock()
	code := m.Run()
	if err := DropTemplates(); err != nil {
		fmt.Fprintln(os.Stderr, "pgtest:", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}
