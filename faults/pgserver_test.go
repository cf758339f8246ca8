package faults

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/internal/pgtest"
)

// pgServer is a PostgreSQL cluster of the test's own (initdb in a temporary
// directory, 127.0.0.1 and a free port), for faults that stop or restart
// the server: the shared one GOLDTRACE_TEST_PG names is never touched.
type pgServer struct {
	t        *testing.T
	bin, dir string
	port     int
	asPG     bool // run the server's programs as the postgres user (we are root)
}

// ownPostgres starts a cluster of the test's own and stops it when the
// test ends. It skips unless GOLDTRACE_TEST_PG is set (PostgreSQL tests
// are wanted) and Debian's PostgreSQL programs are installed.
func ownPostgres(t *testing.T) *pgServer {
	t.Helper()
	if os.Getenv(pgtest.Env) == "" {
		t.Skip(pgtest.Env + " is not set: this test needs PostgreSQL (it starts a cluster of its own)")
	}
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		t.Skip("no initdb under /usr/lib/postgresql: install postgresql to run this test")
	}
	sort.Strings(bins)
	s := &pgServer{t: t, bin: filepath.Dir(bins[len(bins)-1]), asPG: os.Geteuid() == 0}
	dir, err := os.MkdirTemp("", "goldtrace-pg-")
	if err != nil {
		t.Fatal(err)
	}
	s.dir = dir
	t.Cleanup(func() { os.RemoveAll(dir) })
	if s.asPG {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skip("running as root and there is no postgres user to run PostgreSQL as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		if err := os.Chown(dir, uid, -1); err != nil {
			t.Fatal(err)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	s.run("initdb", "-D", s.dir+"/data", "-A", "trust", "-U", "postgres")
	s.ctl("start")
	t.Cleanup(func() { s.ctl("stop", "-m", "immediate") })
	return s
}

// DSN is the cluster's postgres database.
func (s *pgServer) DSN() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.port)
}

// ctl runs pg_ctl ACTION on the cluster and waits for it. The server's
// output goes to a log file: a server holding pg_ctl's output pipe would
// keep the wait for pg_ctl going forever.
func (s *pgServer) ctl(action string, args ...string) {
	s.t.Helper()
	opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s", s.port, s.dir)
	s.run("pg_ctl", append([]string{"-D", s.dir + "/data", "-w", "-l", s.dir + "/server.log", "-o", opts, action}, args...)...)
}

func (s *pgServer) run(program string, args ...string) {
	s.t.Helper()
	cmd := exec.Command(filepath.Join(s.bin, program), args...)
	if s.asPG {
		quoted := []string{cmd.Path}
		for _, a := range args {
			quoted = append(quoted, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
		}
		cmd = exec.Command("su", "postgres", "-s", "/bin/sh", "-c", strings.Join(quoted, " "))
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		s.t.Fatalf("%s: %v\n%s", program, err, out)
	}
}

// TestPostgresRestartUnderLoad restarts PostgreSQL (pg_ctl restart -m
// fast) under a reviewer's labeling and a lead's status reads, through a
// goldtrace serve: the submit in flight is retried by the screen until the
// server is back, no acknowledged label is lost, a status read that fails
// says so in one line, serve keeps running and reconnects by itself (its
// next reads succeed, and it listens for key removals again).
func TestPostgresRestartUnderLoad(t *testing.T) {
	t.Parallel()
	pg := ownPostgres(t)
	tm := pgTeam(t, pg.DSN(), 60, 30, "alice", "bob")
	r := tm.serve()

	stop, done := make(chan struct{}), make(chan struct{})
	var reads, failed int
	var failures []string
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			// A status during the restart answers or fails in one line:
			// one that hangs fails here, not at the suite's timeout.
			ctx, cancel := context.WithTimeout(context.Background(), statusLimit)
			out, err := exec.CommandContext(ctx, "ssh", append(append(tm.sshArgs(r, "carol"), "127.0.0.1", "--"), "status")...).CombinedOutput()
			hung := ctx.Err() != nil
			cancel()
			reads++
			if hung {
				failures = append(failures, fmt.Sprintf("status over ssh did not answer within %s: %q", statusLimit, out))
				failed++
				continue
			}
			if err != nil {
				failed++
				failures = append(failures, string(out))
			}
		}
	}()
	alice := tm.screen(r, "alice")
	alice.waitFor(regexpMust(`\d+/\d+`), 15*time.Second)
	label := func(i int) {
		alice.keys(noToolLabel(fmt.Sprintf("restart %d", i)))
	}
	acked := func(n int) {
		t.Helper()
		deadline := time.Now().Add(40 * time.Second)
		for len(alice.acknowledged()) < n {
			if time.Now().After(deadline) {
				t.Fatalf("%d labels acknowledged after 40 s, want %d; last error on screen: %q; screen: %q",
					len(alice.acknowledged()), n, lastError(alice.text()), tail(alice.text(), 600))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	for i := range 3 {
		label(i)
		acked(i + 1)
	}
	label(3) // in flight while the server restarts
	restarted := time.Now()
	pg.ctl("restart", "-m", "fast")
	t.Logf("pg_ctl restart -m fast took %s", time.Since(restarted).Round(time.Millisecond))
	acked(4)
	for i := 4; i < 7; i++ {
		label(i)
		acked(i + 1)
	}
	close(stop)
	<-done
	select {
	case <-r.done:
		t.Fatalf("serve exited: %s", r.log.String())
	default:
	}
	if out, code := tm.exec(r, "carol", "status"); code != 0 {
		t.Errorf("status after the restart: exit %d: %s", code, out)
	}
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(r.log.String(), "listening for key removals") < 2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := strings.Count(r.log.String(), "listening for key removals"); n < 2 {
		t.Errorf("serve did not listen for key removals again after the restart:\n%s", r.log.String())
	}
	for _, f := range failures {
		f = strings.TrimSpace(f)
		if strings.Count(f, "\n") != 0 || !strings.HasPrefix(f, "goldtrace: ") {
			t.Errorf("a status read failed with other than one goldtrace line: %q", f)
		} else if strings.Count(f, "database postgres://") > 1 {
			t.Errorf("a status read failed saying the database failed more than once: %q", f)
		}
	}
	lost := tm.lost("alice", alice.acknowledged())
	t.Logf("FIGURES postgres restart: %d labels acknowledged, %d lost; %d status reads, %d failed (first: %q)",
		len(alice.acknowledged()), lost, reads, failed, first(failures))
	addLabels(len(alice.acknowledged()), len(alice.acknowledged())-lost)
	noRawDatabaseError(t, alice.text())
	noRawDatabaseError(t, strings.Join(failures, "\n"))
	noRawDatabaseError(t, r.log.String())
}

// statusLimit bounds one status over ssh in TestPostgresRestartUnderLoad:
// far more than a loaded machine takes (a status waits at most the pool's
// connect attempts), far less than the suite's timeout.
const statusLimit = 60 * time.Second

// lastError is the last error line a screen showed ("✗ …"), "" if none.
func lastError(screen string) string {
	i := strings.LastIndex(screen, "✗ ")
	if i < 0 {
		return ""
	}
	line, _, _ := strings.Cut(screen[i:], "\n")
	return strings.TrimSpace(line)
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return strings.TrimSpace(s[0])
}
