package faults

import (
	"bytes"
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/goldtrace/goldtrace/internal/pgtest"
)

// bin is the goldtrace binary TestMain builds.
var bin string

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		fmt.Println("faults: skipped in -short mode (the suite runs the real binary for a few minutes)")
		os.Exit(0)
	}
	dir, err := os.MkdirTemp("", "goldtrace-faults-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "goldtrace")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/goldtrace").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build goldtrace: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	printFigures(os.Stdout)
	os.RemoveAll(dir)
	os.Exit(code)
}

// result is one finished command.
type result struct {
	out, err string
	code     int
}

// run runs goldtrace against db and waits for it.
func run(t *testing.T, db string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--db", db}, args...)...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{out: out.String(), err: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return r
}

// must runs goldtrace and fails the test unless it exits 0.
func must(t *testing.T, db string, args ...string) result {
	t.Helper()
	r := run(t, db, args...)
	if r.code != 0 {
		t.Fatalf("goldtrace %v: exit %d: %s", args, r.code, r.err)
	}
	noRawSQLite(t, r.err)
	return r
}

// rawSQLite is text only SQLite itself writes; a user never sees it.
var rawSQLite = regexp.MustCompile(`(?i)SQLITE_|database is locked|disk image is malformed|attempt to write a readonly database|database or disk is full|file is not a database|database table is locked|\(\d+\)$`)

func noRawSQLite(t *testing.T, text string) {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if rawSQLite.MatchString(strings.TrimSpace(line)) {
			t.Errorf("raw SQLite error shown to the user: %q", line)
		}
	}
}

// checkPasses asserts `goldtrace check` finds nothing wrong.
func checkPasses(t *testing.T, db string) {
	t.Helper()
	r := run(t, db, "check")
	if r.code != 0 {
		t.Fatalf("goldtrace check: exit %d:\n%s%s", r.code, r.out, r.err)
	}
}

// onEngines runs a fault test on SQLite and on PostgreSQL (a database of
// its own on GOLDTRACE_TEST_PG's server; that subtest skips when it is
// unset), as parallel subtests named after the engine.
func onEngines(t *testing.T, test func(t *testing.T, engine string)) {
	for _, e := range []string{"sqlite", "postgres"} {
		t.Run(e, func(t *testing.T) {
			t.Parallel()
			test(t, e)
		})
	}
}

// project makes a database with traces traces imported, users alice and
// bob (reviewers) and carol (lead), and a batch of n items for reviewers.
func project(t *testing.T, dir string, traces, n int, reviewers ...string) (db, traceFile string) {
	t.Helper()
	return projectOn(t, "sqlite", dir, traces, n, reviewers...)
}

// projectOn is project on the named engine.
func projectOn(t *testing.T, engine, dir string, traces, n int, reviewers ...string) (db, traceFile string) {
	t.Helper()
	db = filepath.Join(dir, "gt.db")
	if engine == "postgres" {
		db = pgtest.DSN(t)
		must(t, db, "init")
	}
	traceFile = filepath.Join(dir, "traces.jsonl")
	must(t, db, "demo", "--write-traces", fmt.Sprint(traces), traceFile)
	must(t, db, "import", traceFile)
	must(t, db, "users", "add", "carol", "--role", "lead")
	for _, r := range reviewers {
		must(t, db, "users", "add", r, "--role", "reviewer", "--as", "carol")
	}
	if n > 0 {
		must(t, db, "sample", "--n", fmt.Sprint(n), "--seed", "1", "--reviewers", strings.Join(reviewers, ","))
	}
	return db, traceFile
}

// openDirect opens db (a SQLite file, read-only, or a postgres:// DSN)
// with database/sql, outside goldtrace; query rewrites a query's ?
// placeholders for it.
func openDirect(t *testing.T, db, query string) (*sql.DB, string) {
	t.Helper()
	if strings.HasPrefix(db, "postgres://") {
		h, err := sql.Open("pgx", db)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		n := 0
		for _, r := range query {
			if r == '?' {
				n++
				fmt.Fprintf(&b, "$%d", n)
				continue
			}
			b.WriteRune(r)
		}
		return h, b.String()
	}
	h, err := sql.Open("sqlite", "file:"+db+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	return h, query
}

// sqlCount runs a count query on db directly.
func sqlCount(t *testing.T, db, query string, args ...any) int {
	t.Helper()
	h, query := openDirect(t, db, query)
	defer h.Close()
	var n int
	if err := h.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// labelStored reports whether reviewer's label of item is in db.
func labelStored(t *testing.T, db, item, reviewer string) bool {
	return sqlCount(t, db, `SELECT count(*) FROM labels WHERE item_id = ? AND reviewer = ?`, item, reviewer) == 1
}

// labeler is `goldtrace label` running on a pseudo-terminal of 80×24.
type labeler struct {
	t      *testing.T
	cmd    *exec.Cmd
	pty    *os.File
	stderr bytes.Buffer
	mu     sync.Mutex
	screen bytes.Buffer // everything written to the terminal
	done   chan struct{}
	code   int
}

func startLabeler(t *testing.T, db, reviewer string, extra ...string) *labeler {
	t.Helper()
	return startTerminal(t, bin, append([]string{"--db", db, "label", "--as", reviewer}, extra...)...)
}

// startTerminal runs a program on a pseudo-terminal of 80×24 (goldtrace
// label, or ssh into a label screen).
func startTerminal(t *testing.T, program string, args ...string) *labeler {
	t.Helper()
	master, slave, err := openPTY(80, 24)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	l := &labeler{t: t, pty: master, done: make(chan struct{})}
	l.cmd = exec.Command(program, args...)
	l.cmd.Env = append(os.Environ(), "NO_COLOR=1", "TERM=xterm-256color")
	l.cmd.Stdin, l.cmd.Stdout, l.cmd.Stderr = slave, slave, &l.stderr
	setControllingTTY(l.cmd)
	if err := l.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	go l.read()
	go func() {
		err := l.cmd.Wait()
		if ee, ok := err.(*exec.ExitError); ok {
			l.code = ee.ExitCode()
		}
		close(l.done)
	}()
	t.Cleanup(func() { l.kill(); master.Close() })
	return l
}

// read copies the terminal output, answering the queries a terminal
// answers (background colour, cursor position).
func (l *labeler) read() {
	buf := make([]byte, 32<<10)
	for {
		n, err := l.pty.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			if bytes.Contains(chunk, []byte("\x1b]11;?")) {
				l.pty.Write([]byte("\x1b]11;rgb:0000/0000/0000\x1b\\"))
			}
			if bytes.Contains(chunk, []byte("\x1b[6n")) {
				l.pty.Write([]byte("\x1b[1;1R"))
			}
			l.mu.Lock()
			l.screen.Write(chunk)
			l.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// text is what was written to the terminal so far, escapes removed.
func (l *labeler) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return ansi.Strip(l.screen.String())
}

// keys types s (bubbletea reads the bytes as keys: \r enter, \x13 ctrl+s).
func (l *labeler) keys(s string) {
	for _, ch := range s {
		l.pty.Write([]byte(string(ch)))
	}
}

// waitFor waits until the screen matches re, failing after limit.
func (l *labeler) waitFor(re *regexp.Regexp, limit time.Duration) []string {
	l.t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(l.text()); m != nil {
			return m
		}
		select {
		case <-l.done:
			if m := re.FindStringSubmatch(l.text()); m != nil {
				return m
			}
			l.t.Fatalf("labeler exited (%d) before %s; stderr: %s\nscreen tail: %q", l.code, re, l.stderr.String(), tail(l.text(), 400))
		case <-time.After(20 * time.Millisecond):
		}
	}
	l.t.Fatalf("no %s on screen within %s; screen tail: %q", re, limit, tail(l.text(), 600))
	return nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

var submittedRE = regexp.MustCompile(`submitted (it_[0-9a-f]{16})`)

// acknowledged lists the items the screen said were submitted.
func (l *labeler) acknowledged() []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range submittedRE.FindAllStringSubmatch(l.text(), -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}

// kill sends SIGKILL and waits for the process to end.
func (l *labeler) kill() {
	if l.cmd.Process != nil {
		l.cmd.Process.Kill()
	}
	<-l.done
}

// wait waits for the labeler to exit on its own.
func (l *labeler) wait(limit time.Duration) int {
	l.t.Helper()
	select {
	case <-l.done:
		return l.code
	case <-time.After(limit):
		l.t.Fatalf("labeler did not exit within %s; screen tail: %q", limit, tail(l.text(), 400))
	}
	return -1
}

// noLabelForm is a label with no tool and a rationale, then submit.
func noToolLabel(rationale string) string { return "(no\r" + rationale + "\x13" }

// lockProbe measures, from outside, how long a writer has to wait for the
// write lock: it takes and drops the lock every few milliseconds and keeps
// the longest wait, which is the longest any process held it meanwhile.
// While it waits it says so the way every goldtrace write does (a shared
// flock on DB-wait, store/write_waiters.go), so that bulk writers pause for
// it as they pause for a reviewer's submit.
type lockProbe struct {
	stop    chan struct{}
	done    chan struct{}
	longest time.Duration
	busy    int
	err     error
}

func startLockProbe(t *testing.T, db string) *lockProbe {
	t.Helper()
	h, err := sql.Open("sqlite", "file:"+db+"?_pragma=busy_timeout(15000)")
	if err != nil {
		t.Fatal(err)
	}
	wait, err := os.OpenFile(db+"-wait", os.O_RDONLY|os.O_CREATE, 0o666)
	if err != nil {
		t.Fatal(err)
	}
	p := &lockProbe{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		defer h.Close()
		defer wait.Close()
		conn, err := h.Conn(context.Background())
		if err != nil {
			p.err = err
			return
		}
		defer conn.Close()
		for {
			select {
			case <-p.stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			start := time.Now()
			markWaiting(wait, true)
			_, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE")
			markWaiting(wait, false)
			if err != nil {
				p.busy++
				continue
			}
			p.longest = max(p.longest, time.Since(start))
			conn.ExecContext(context.Background(), "ROLLBACK")
		}
	}()
	return p
}

func (p *lockProbe) finish() (time.Duration, int) {
	close(p.stop)
	<-p.done
	return p.longest, p.busy
}

func regexpMust(s string) *regexp.Regexp { return regexp.MustCompile(s) }

// sqlStrings runs a one-column text query on db directly.
func sqlStrings(t *testing.T, db, query string, args ...any) []string {
	t.Helper()
	h, query := openDirect(t, db, query)
	defer h.Close()
	rows, err := h.Query(query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// lastLine is the last non-empty line of s (main's one error line comes
// after any progress).
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
