package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/app"

	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/score"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace/synth"
)

// dashProject is a demo project with a sampled batch fully labeled by the
// simulated reviewers and one dispute adjudicated: the database path.
func dashProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	db := filepath.Join(dir, "goldtrace.db")
	if _, stderr, code := expRun(t, db, "demo", "--dir", dir, "--seed", "1"); code != 0 {
		t.Fatalf("demo: %s", stderr)
	}
	if _, stderr, code := expRun(t, db, "sample", "--n", "40", "--seed", "1", "--by", "tool", "--reviewers", "alice,bob", "--batch", "dash"); code != 0 {
		t.Fatalf("sample: %s", stderr)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	truth := map[string]synth.Expected{}
	for _, c := range synth.GenerateCases(synth.Options{Seed: 1, N: 300}) {
		for _, e := range c.Expected {
			truth[e.ItemID] = e
		}
	}
	for _, r := range []string{"alice", "bob"} {
		queue, err := st.Queue(ctx, r, "dash")
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range queue {
			ans := synth.SimulatedLabel(truth[a.ItemID], r, 1)
			l := review.Label{Item: a.ItemID, Reviewer: r, Decision: review.DecisionNoCall, Rationale: ans.Rationale, Seconds: 12}
			if !ans.NoCall {
				l.Decision = review.DecisionCall
				for _, c := range ans.Calls {
					l.Calls = append(l.Calls, review.LabelCall{Tool: c.Name, Args: c.Arguments})
				}
			}
			if _, err := st.SubmitLabel(ctx, l); err != nil {
				t.Fatal(err)
			}
		}
	}
	disputes, err := st.DisputedQueue(ctx, store.DisputeFilter{})
	if err != nil || len(disputes) == 0 {
		t.Fatalf("the demo batch has no dispute to adjudicate (%v)", err)
	}
	if _, stderr, code := expRun(t, db, "resolve", disputes[0].Item, "--as", "carol", "--pick", "bob", "--reason", "bob followed the guide"); code != 0 {
		t.Fatalf("resolve: %s", stderr)
	}
	return db
}

// The preview scores exactly what an export contains: goldtrace score over
// the exported file (its observed calls) gives the same report, item for
// item.
func TestDashboardMatchesScoreOfExport(t *testing.T) {
	db := dashProject(t)
	out := t.TempDir()
	if _, stderr, code := expRun(t, db, "export", "demo", "--out", out, "--as", "carol", "-m", "preview check", "--allow-partial"); code != 0 {
		t.Fatalf("export: %s", stderr)
	}
	file := filepath.Join(out, dataset.FileName("demo", 1))
	stdout, stderr, code := expRun(t, db, "score", "--gold", file, "--json")
	if code != 0 {
		t.Fatalf("score: exit %d: %s", code, stderr)
	}
	var fromExport score.Report
	if err := json.Unmarshal([]byte(stdout), &fromExport); err != nil {
		t.Fatalf("score --json: %v", err)
	}

	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	lead := app.Actor{Name: "carol", Role: app.RoleLead, Source: app.SourceLocal}
	_, preview, err := app.New(st).As(lead).ScoreObserved(ctx, store.GoldFilter{}, score.ProfileDefault, nil)
	if err != nil {
		t.Fatal(err)
	}
	preview.Gold, preview.Predictions = fromExport.Gold, fromExport.Predictions

	if preview.Overall.Items != fromExport.Overall.Items || preview.Overall.Items < 20 {
		t.Fatalf("preview has %d gold items, the export %d", preview.Overall.Items, fromExport.Overall.Items)
	}
	if preview.Overall.Correct == preview.Overall.Items {
		t.Fatal("fixture has no failing item: the comparison would prove little")
	}
	got, _ := json.Marshal(preview)
	want, _ := json.Marshal(&fromExport)
	if !bytes.Equal(got, want) {
		t.Errorf("preview report differs from goldtrace score over the export\npreview: %s\nscore:   %s", got, want)
	}
}

func TestDashboardCommandRefuses(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "goldtrace.db")
	if _, stderr, code := expRun(t, db, "demo", "--dir", dir); code != 0 {
		t.Fatalf("demo: %s", stderr)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"a reviewer", []string{"dashboard", "--as", "alice"}, "alice is a reviewer; only a lead may open the dashboard"},
		{"an unknown user", []string{"dashboard", "--as", "zed"}, `no user "zed" (users are alice, bob, carol): add one with`},
		{"no --as", []string{"dashboard"}, "--as LEAD is required"},
		{"an unknown batch", []string{"dashboard", "--as", "carol", "--batch", "nope"}, `no batch "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := expRun(t, db, tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.want) || strings.Count(stderr, "\n") != 1 || stdout != "" {
				t.Errorf("exit %d, stderr %q, stdout %q; want exit 2 and one line with %q", code, stderr, stdout, tt.want)
			}
		})
	}
}
