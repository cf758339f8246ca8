package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/internal/pgtest"
	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/tui"
)

// A lead settles a dispute in the running program: the item becomes gold
// with the picked reviewer's calls; on SQLite, and on PostgreSQL when
// GOLDTRACE_TEST_PG is set.
func TestAdjudicateFlowInTheProgram(t *testing.T) {
	lipgloss.SetColorProfile(termenv.Ascii)
	t.Run("sqlite", func(t *testing.T) { adjudicateInTheProgram(t, filepath.Join(t.TempDir(), "gt.db")) })
	t.Run("postgres", func(t *testing.T) { adjudicateInTheProgram(t, pgtest.DSN(t)) })
}

func adjudicateInTheProgram(t *testing.T, path string) {
	db, item := rvDisputedAt(t, path)
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	be := app.New(st)
	carol, err := be.LocalActor(context.Background(), "carol")
	if err != nil {
		t.Fatal(err)
	}
	c := tui.NewCommon(be.As(carol))
	c.Styles = tui.StylesFor(true)
	tm := teatest.NewTestModel(t, tui.NewAdjudicateRoot(c, tui.AdjudicateOptions{Lead: "carol"}), teatest.WithInitialTermSize(80, 24))
	wait := func(what string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(what)) },
			teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	}
	wait("disputed: args")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("2")})
	wait("Reason:")
	tm.Type("bob asked about ORD-2 last")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	wait("No disputed items")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	final := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*tui.Root)
	if got := final.Status().Text(); got != "resolved "+item+" : picked bob" {
		t.Errorf("status %q", got)
	}

	g, err := st.GoldOf(context.Background(), item)
	if err != nil {
		t.Fatal(err)
	}
	calls, _ := json.Marshal(g.Calls)
	if g.Status != review.GoldAdjudicated || g.Adjudicator != "carol" || g.Reason != "bob asked about ORD-2 last" ||
		string(calls) != `[{"tool":"get_order_status","args":{"order_id":"ORD-2"}}]` {
		t.Errorf("gold %+v calls %s", g, calls)
	}
}

func TestAdjudicateCommandRefuses(t *testing.T) {
	db, _ := rvDisputed(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no lead named", []string{"adjudicate"}, "only a lead may adjudicate: --as LEAD is required"},
		{"unknown kind", []string{"adjudicate", "--as", "carol", "--kind", "typo"}, "want one of decision, tool, args"},
		{"a reviewer", []string{"adjudicate", "--as", "alice"}, "alice is a reviewer; only a lead may adjudicate"},
		{"no such user", []string{"adjudicate", "--as", "zed"}, "no user \"zed\" (users are alice, bob, carol, dave): add one with `goldtrace users add zed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := adjcRun(t, db, "", tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v, want one line with %q", err, tt.want)
			}
			if exitCode(err) != 2 {
				t.Errorf("exit code %d, want 2", exitCode(err))
			}
		})
	}
}

// The command runs the screen on its streams and quits on q.
func TestAdjudicateCommandRunsAndQuits(t *testing.T) {
	db, item := rvDisputed(t)
	_, _, err := adjcRun(t, db, "q", "adjudicate", "--as", "carol", "--batch", "b1", "--kind", "args")
	if err != nil {
		t.Fatalf("adjudicate: %v", err)
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if q, err := st.DisputedQueue(context.Background(), store.DisputeFilter{}); err != nil || len(q) != 1 || q[0].Item != item {
		t.Errorf("quitting changed the queue: %+v %v", q, err)
	}
}

// adjcRun runs goldtrace with input in, returning stdout, stderr and the error.
func adjcRun(t *testing.T, db, in string, args ...string) (string, string, error) {
	t.Helper()
	out, errOut, _, err := runCLI(db, in, args...)
	return out, errOut, err
}
