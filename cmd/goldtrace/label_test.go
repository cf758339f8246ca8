package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/internal/pgtest"
	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/store"
)

func TestLabelRefusesUnknownUser(t *testing.T) {
	db, _ := lblProject(t, 1)
	_, err := tuiRun(t, db, "label", "--as", "zed")
	if err == nil || !strings.Contains(err.Error(), `no user "zed" (users are alice, bob, carol): add one with `+"`goldtrace users add zed --role reviewer`") {
		t.Fatalf("got %v", err)
	}
	if _, err := tuiRun(t, db, "label"); err == nil || !strings.Contains(err.Error(), "--as NAME") {
		t.Errorf("missing --as: %v", err)
	}
}

// lblTmux drives one tmux server of its own (socket name) for a test.
type lblTmux struct {
	t      *testing.T
	socket string
}

func (x lblTmux) run(args ...string) string {
	x.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", x.socket}, args...)...).CombinedOutput()
	if err != nil {
		x.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// waitScreen polls the pane until it shows text; an external process can
// only be watched, not awaited.
func (x lblTmux) waitScreen(text string) string {
	x.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var screen string
	for time.Now().Before(deadline) {
		screen = x.run("capture-pane", "-p", "-t", "e2e")
		if strings.Contains(screen, text) {
			return screen
		}
		time.Sleep(50 * time.Millisecond)
	}
	x.t.Fatalf("screen never showed %q:\n%s", text, screen)
	return ""
}

// TestLabelEndToEndInTmux runs the real binary in a tmux pane at 80×24,
// labels an item with keystrokes and checks the label in the database: a
// SQLite file, and a PostgreSQL database when GOLDTRACE_TEST_PG is set.
func TestLabelEndToEndInTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary in tmux")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	bin := filepath.Join(t.TempDir(), "goldtrace")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	t.Run("sqlite", func(t *testing.T) {
		db, items := lblProject(t, 2)
		labelInTmux(t, bin, db, items)
	})
	t.Run("postgres", func(t *testing.T) {
		db, items := lblProjectOn(t, pgtest.DSN(t), 2)
		labelInTmux(t, bin, db, items)
	})
}

// lblProjectOn is lblProject on the database db (a PostgreSQL DSN), made
// with the commands a user runs.
func lblProjectOn(t *testing.T, db string, n int) (string, []string) {
	t.Helper()
	traces := filepath.Join(t.TempDir(), "traces.jsonl")
	for _, args := range [][]string{
		{"init"}, {"users", "add", "carol", "--role", "lead"},
		{"users", "add", "alice", "--role", "reviewer", "--as", "carol"}, {"users", "add", "bob", "--role", "reviewer", "--as", "carol"},
		{"demo", "--write-traces", "20", traces, "--seed", "3"}, {"import", traces},
		{"sample", "--n", itoaTest(n), "--seed", "1", "--reviewers", "alice,bob", "--batch", "b1"},
	} {
		if _, errOut, code, _ := runCLI(db, "", args...); code != 0 {
			t.Fatalf("goldtrace %s: exit %d: %s", strings.Join(args, " "), code, errOut)
		}
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	q, err := st.Queue(context.Background(), "alice", "b1")
	if err != nil || len(q) != n {
		t.Fatalf("queue %v %v", q, err)
	}
	var items []string
	for _, a := range q {
		items = append(items, a.ItemID)
	}
	return db, items
}

func labelInTmux(t *testing.T, bin, db string, items []string) {
	x := lblTmux{t: t, socket: fmt.Sprintf("gt-e2e-%d-%s", os.Getpid(), filepath.Base(t.Name()))}
	x.run("new-session", "-d", "-s", "e2e", "-x", "80", "-y", "24", "env", "NO_COLOR=1", bin, "label", "--as", "alice", "--db", db)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", x.socket, "kill-server").Run() })

	screen := x.waitScreen("1/2")
	for _, want := range []string{"[user]", "▶ decision point", "▸Tool", "(no tool)"} {
		if !strings.Contains(screen, want) {
			t.Errorf("first screen lacks %q:\n%s", want, screen)
		}
	}
	x.run("send-keys", "-t", "e2e", "-l", "no tool")
	x.run("send-keys", "-t", "e2e", "Enter")
	x.waitScreen("▸Why")
	x.run("send-keys", "-t", "e2e", "-l", "asked in words")
	x.run("send-keys", "-t", "e2e", "C-s")
	x.waitScreen("2/2")
	x.run("send-keys", "-t", "e2e", "-l", "no")
	x.run("send-keys", "-t", "e2e", "C-c")
	// The pane (and with it this tmux server) ends when goldtrace quits.
	deadline := time.Now().Add(10 * time.Second)
	for exec.Command("tmux", "-L", x.socket, "has-session", "-t", "e2e").Run() == nil {
		if time.Now().After(deadline) {
			t.Fatal("goldtrace did not quit on ctrl+c")
		}
		time.Sleep(50 * time.Millisecond)
	}

	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	l, err := st.Label(context.Background(), items[0], "alice")
	if err != nil || l.Decision != review.DecisionNoCall || l.Rationale != "asked in words" || !strings.HasPrefix(l.GuideVersion, "g_") {
		t.Fatalf("label in the database: %+v %v", l, err)
	}
}
