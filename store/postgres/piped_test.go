package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/goldtrace/goldtrace/internal/dberr"
	"github.com/goldtrace/goldtrace/internal/pgtest"
)

// A server that shuts down (pg_ctl restart -m fast) just as a piped
// transaction commits sends its FATAL after the commit's answer, in the
// same round: the transaction is stored, so WithPiped says so, and the
// pool goes on with a connection that works. (Said "failed", a reviewer's
// screen retried the submit into "already submitted" and never moved on.)
func TestPipedCommitAnsweredThenServerGoneIsCommitted(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	db, armed, fired := openBehindFatalAtCommit(t, dsn, true)
	armed.Store(true)
	err := db.WithPiped(ctx, func(p *Piped) error {
		if err := p.Round(Stmt{Query: `INSERT INTO a(id, v) VALUES (?, ?)`, Args: []any{1, "first round"}}); err != nil {
			return err
		}
		return p.Commit(Stmt{Query: `INSERT INTO a(id, v) VALUES (?, ?)`, Args: []any{2, "committing round"}})
	})
	if !fired.Load() {
		t.Fatal("the proxy never saw the commit's answer: the case is not tried")
	}
	if err != nil {
		t.Errorf("WithPiped after the server answered COMMIT, then went: %v; want nil (it is stored)", err)
	}
	direct, err := Open(ctx, dsn, Options{NoSchema: true})
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	var n int
	if err := direct.Reader().QueryRowContext(ctx, `SELECT count(*) FROM a`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Fatalf("%d rows stored, want the transaction's 2", n)
	}
	// The connection the FATAL ended is not handed out again.
	if err := db.Reader().QueryRowContext(ctx, `SELECT count(*) FROM a`).Scan(&n); err != nil {
		t.Errorf("a read after it: %v", err)
	}
}

// A connection lost as the commit is answered, the answer with it: the
// transaction may be stored or not, and WithPiped fails in one line that
// says the database was unavailable (the caller finds out which: a
// reviewer's submit, retried, finds its own label there).
func TestPipedCommitUnansweredIsOneLine(t *testing.T) {
	ctx := context.Background()
	db, armed, fired := openBehindFatalAtCommit(t, pgtest.DSN(t), false)
	armed.Store(true)
	err := db.WithPiped(ctx, func(p *Piped) error {
		return p.Commit(Stmt{Query: `INSERT INTO a(id, v) VALUES (?, ?)`, Args: []any{1, "unanswered"}})
	})
	if !fired.Load() {
		t.Fatal("the proxy never saw the commit's answer: the case is not tried")
	}
	if msg := fmt.Sprint(err); !errors.Is(err, dberr.ErrUnavailable) || strings.Contains(msg, "\n") || strings.Contains(msg, "driver:") ||
		!strings.Contains(msg, "not accepting connections") {
		t.Errorf("WithPiped whose commit went unanswered: %q, want one line saying the server is not accepting connections", msg)
	}
}

// openBehindFatalAtCommit opens the database at dsn through
// pgtest.FatalAtCommit's proxy (after: the FATAL follows the commit's
// answer), and returns the proxy's switches: armed to arm it, fired once
// it has acted.
func openBehindFatalAtCommit(t *testing.T, dsn string, after bool) (db *DB, armed, fired *atomic.Bool) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Host, armed, fired = pgtest.FatalAtCommit(t, u.Host, after)
	db, err = Open(context.Background(), u.String(), Options{Migrations: testMigrations})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, armed, fired
}
