package main

import (
	"bytes"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/goldtrace/goldtrace/internal/pgtest"
	"github.com/goldtrace/goldtrace/internal/sqlitetest"
)

// syncBuffer is a server log the test reads while the server writes it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// noPlace fails the test when what a user was told names any of places.
func noPlace(t *testing.T, what, told string, places ...string) {
	t.Helper()
	for _, p := range places {
		if strings.Contains(told, p) {
			t.Errorf("%s names %q, where the database lives:\n%s", what, p, tail(told, 1500))
		}
	}
}

// TestServeWithholdsTheDatabaseFile: on a SQLite project whose write lock
// another process holds, a reviewer over SSH (a command, their label
// screen, whoami) is told the database is busy and to try again, never its
// file path; the lead is told where it is (they run check and backup);
// the server's log keeps what the reviewer was not told. The screen's
// submit goes through once the lock is let go.
func TestServeWithholdsTheDatabaseFile(t *testing.T) {
	log := &syncBuffer{}
	ts := &teamServer{t: t, dir: t.TempDir(), busy: 300 * time.Millisecond, log: log}
	seedTeam(t, ts, 20, 3, []string{"alice", "bob"})
	ts.serve(newKey(t))
	screen := ts.openScreen("alice") // 80×24: the status line is cut there
	screen.waitFor("Your label")

	release := sqlitetest.HoldWriteLock(t, ts.db, 0)
	line := `{"item":"` + ts.items[0] + `","reviewer":"alice","decision":"no_call","calls":[],"rationale":"no tool needed"}` + "\n"
	_, errOut, code := ts.run("alice", line, "labels", "import", "-")
	if code == 0 || !strings.Contains(errOut, "the database is busy") || !strings.Contains(errOut, "try again") {
		t.Errorf("alice's labels import with the lock held elsewhere: exit %d: %q, want the database is busy, try again", code, errOut)
	}
	noPlace(t, "alice's labels import error", errOut, ts.dir, "gt.db")
	if n := strings.Count(strings.TrimSpace(errOut), "\n"); n != 0 {
		t.Errorf("alice's error is %d lines: %q", n+1, errOut)
	}
	out, _, _ := ts.run("alice", "", "whoami")
	noPlace(t, "alice's whoami", out, ts.dir, "gt.db")
	if !strings.Contains(out, "the server's") {
		t.Errorf("alice's whoami: %q, want the server's database, unnamed", out)
	}

	// The lead is told where: they run check and backup over SSH.
	_, errOut, code = ts.run("carol", "# guide\n\nLabel what the user asked for.\n", "guide", "set", "-")
	if code == 0 || !strings.Contains(errOut, "database "+ts.db+" is busy") {
		t.Errorf("carol's guide set with the lock held elsewhere: exit %d: %q, want the database's path", code, errOut)
	}
	if out, _, _ := ts.run("carol", "", "whoami"); !strings.Contains(out, ts.db) {
		t.Errorf("carol's whoami: %q, want the database's path", out)
	}

	// The label screen: the submit is kept, retried, and said to be
	// waiting on a busy database, not on which file.
	screen.send("\r")
	screen.send("answered while another process writes")
	screen.send("\x13")
	screen.waitFor("the database is busy")
	noPlace(t, "alice's label screen", screen.screen(), ts.dir, "gt.db")
	release()
	waitUntil(t, "alice's label, once the lock is let go", func() bool { return len(ts.labelsOf("alice")) == 1 })

	// The operator's log says what alice was not told.
	if got := log.String(); !strings.Contains(got, "told without the database's place") || !strings.Contains(got, "user=alice") ||
		!strings.Contains(got, ts.db) {
		t.Errorf("the server's log lacks what alice was not told:\n%s", tail(got, 3000))
	}
}

// cutProxy forwards to server (host:port) until cut, which closes every
// connection it made and stops listening: the database is then out of
// reach, as when its server stops.
func cutProxy(t *testing.T, server string) (addr string, cut func()) {
	t.Helper()
	var mu sync.Mutex
	var conns []net.Conn
	gone := false
	ln := pgtest.Forward(t, server, func(c, s net.Conn) {
		mu.Lock()
		if gone {
			mu.Unlock()
			c.Close()
			s.Close()
			return
		}
		conns = append(conns, c, s)
		mu.Unlock()
		go func() { _, _ = io.Copy(s, c); s.Close() }()
		_, _ = io.Copy(c, s)
		c.Close()
	})
	return ln.Addr().String(), func() {
		mu.Lock()
		defer mu.Unlock()
		gone = true
		ln.Close()
		for _, c := range conns {
			c.Close()
		}
	}
}

// TestServeWithholdsThePostgresServer: serve on a PostgreSQL database that
// goes out of reach. A reviewer's label screen says its submit waits on
// an unavailable database, and a command on a connection made before says
// the same, never the server's host, port or database name; the server's
// log names them.
func TestServeWithholdsThePostgresServer(t *testing.T) {
	dsn := pgtest.DSN(t)
	log := &syncBuffer{}
	ts := &teamServer{t: t, dir: t.TempDir(), db: dsn, log: log}
	seedTeam(t, ts, 20, 3, []string{"alice", "bob"})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	proxy, cut := cutProxy(t, u.Host)
	u.Host = proxy
	ts.db = u.String()
	ts.serve(newKey(t))
	_, port, _ := net.SplitHostPort(proxy)
	places := []string{"postgres://", proxy, "port " + port, strings.TrimPrefix(u.Path, "/")}

	screen := ts.openScreen("alice")
	screen.waitFor("Your label")
	alice, carol := ts.client("alice"), ts.client("carol") // connected while it answers
	cut()

	screen.send("\r")
	screen.send("typed as the database went")
	screen.send("\x13")
	screen.waitFor("the database is unavailable")
	noPlace(t, "alice's label screen", screen.screen(), places...)

	for _, c := range []struct {
		who    string
		client *gossh.Client
	}{{"alice", alice}, {"carol", carol}} {
		// Whose key it is cannot be checked: nobody is told where.
		_, errOut, code := execOn(t, c.client, "", "status")
		if code == 0 || !strings.Contains(errOut, "the database is unavailable") {
			t.Errorf("%s's status with the database gone: exit %d: %q", c.who, code, errOut)
		}
		noPlace(t, c.who+"'s status error", errOut, places...)
	}
	got := log.String()
	if !strings.Contains(got, "user=alice") || !strings.Contains(got, "port "+port) {
		t.Errorf("the server's log does not say what alice was not told:\n%s", tail(got, 3000))
	}
}
