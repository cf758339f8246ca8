package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
	"github.com/goldtrace/goldtrace/trace/synth"
)

// demoRun runs goldtrace with args and returns stdout, stderr and the error.
func demoRun(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	out, errOut, _, err := runCLI(filepath.Join(t.TempDir(), "unused.db"), "", args...)
	return out, errOut, err
}

func TestDemoWriteTracesToStdout(t *testing.T) {
	out, errOut, err := demoRun(t, "demo", "--write-traces", "25", "-", "--seed", "3")
	if err != nil {
		t.Fatal(err)
	}
	if errOut != "" {
		t.Errorf("stderr: %q", errOut)
	}
	want := synth.Generate(synth.Options{Seed: 3, N: 25})
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	i := 0
	for sc.Scan() {
		var tr trace.Trace
		if err := json.Unmarshal(sc.Bytes(), &tr); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		wantLine, _ := json.Marshal(want[i])
		if !bytes.Equal(sc.Bytes(), wantLine) {
			t.Fatalf("line %d is not json.Marshal of trace %s", i+1, want[i].ID)
		}
		i++
	}
	if i != 25 {
		t.Errorf("%d lines on stdout, want exactly the 25 traces", i)
	}
}

func TestDemoWriteTracesToFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "traces.jsonl")
	out, _, err := demoRun(t, "demo", "--write-traces", "10", path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "wrote 10 traces") {
		t.Errorf("stdout %q does not say what was written", out)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if _, err := synth.Write(&want, synth.Options{Seed: 1, N: 10}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Error("file differs from synth.Write with the default seed")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("%d files beside the output, want none left over", len(entries)-1)
	}
}

func TestDemoBadUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no file", []string{"demo", "--write-traces", "5"}, "needs a FILE"},
		{"negative", []string{"demo", "--write-traces", "-1", "-"}, "at least 0"},
		{"file without flag", []string{"demo", "out.jsonl"}, "goes with --write-traces"},
		{"no traces", []string{"demo", "--traces", "0"}, "at least 1"},
		{"missing dir", []string{"demo", "--write-traces", "1", "/nonexistent/dir/x.jsonl"}, "/nonexistent/dir/x.jsonl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := demoRun(t, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one mentioning %q", err, tt.want)
			}
			if exitCode(err) != 2 {
				t.Errorf("exit code %d, want 2", exitCode(err))
			}
		})
	}
}

func TestDemoCreatesProject(t *testing.T) {
	dir := t.TempDir()
	out, _, err := demoRun(t, "demo", "--dir", dir, "--traces", "40", "--seed", "5", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var p app.DemoProject
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("--json output %q: %v", out, err)
	}
	if p.Traces != 40 || p.Items == 0 || p.ItemsWithCalls == 0 || p.ItemsNoCalls == 0 || p.Items != p.ItemsWithCalls+p.ItemsNoCalls {
		t.Errorf("summary %+v", p)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, p.DB)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var traces, items, withCalls int
	if err := st.Reader().QueryRowContext(ctx, `SELECT (SELECT count(*) FROM traces), count(*), coalesce(sum(n_calls > 0), 0) FROM items`).
		Scan(&traces, &items, &withCalls); err != nil {
		t.Fatal(err)
	}
	if traces != p.Traces || items != p.Items || withCalls != p.ItemsWithCalls {
		t.Errorf("store holds %d traces, %d items, %d with calls; summary says %+v", traces, items, withCalls, p)
	}
	users, err := st.Users(ctx)
	if err != nil {
		t.Fatal(err)
	}
	roles := map[string]string{}
	for _, u := range users {
		roles[u.Name] = u.Role
	}
	if roles["alice"] != store.RoleReviewer || roles["bob"] != store.RoleReviewer || roles["carol"] != store.RoleLead {
		t.Errorf("users %v", roles)
	}

	// Running again in the same directory keeps the same project.
	text, _, err := demoRun(t, "demo", "--dir", dir, "--traces", "40", "--seed", "5")
	if err != nil {
		t.Fatalf("second run: %v", err)
	}
	for _, want := range []string{p.DB, "40 synthetic", "alice, bob", "goldtrace label --as alice"} {
		if !strings.Contains(text, want) {
			t.Errorf("text output lacks %q:\n%s", want, text)
		}
	}
}

// TestDemoSeedsWork: the demo project has a sampled batch with the default
// guide, bob's labels for all of it and alice's for the first items, so
// alice has items left to label and the lead has disputes and gold; running
// it again in the same directory keeps that work.
func TestDemoSeedsWork(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "project")
	for run := 0; run < 2; run++ {
		out, _, err := demoRun(t, "demo", "--dir", dir, "--traces", "120", "--batch-items", "20", "--prelabeled", "12", "--json")
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		var p app.DemoProject
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatalf("run %d: %v\n%s", run, err, out)
		}
		if run == 0 && (p.Work.Items != 20 || p.Work.BobLabeled != 20 || p.Work.AliceLabeled != 12 || p.Work.AliceLeft != 8 ||
			p.Work.Agreed+p.Work.Disputed != 12 || p.Work.Guide == "") {
			t.Fatalf("work %+v", p.Work)
		}
	}
	st, err := store.Open(context.Background(), filepath.Join(dir, "goldtrace.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	queue, err := st.Queue(context.Background(), "alice", app.DemoBatch)
	if err != nil || len(queue) != 8 {
		t.Fatalf("alice's queue after two runs: %d items, %v", len(queue), err)
	}
	if q, _ := st.Queue(context.Background(), "bob", app.DemoBatch); len(q) != 0 {
		t.Errorf("bob has %d items left, want none", len(q))
	}
}
