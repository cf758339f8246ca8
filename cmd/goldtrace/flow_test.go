package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/trace/synth"
)

// flowRun runs one goldtrace command against db and returns stdout, stderr
// and the exit code main would use.
func flowRun(t *testing.T, db string, args ...string) (string, string, int) {
	t.Helper()
	out, errOut, code, _ := runCLI(db, "", args...)
	return out, errOut, code
}

func flowMust(t *testing.T, db string, args ...string) string {
	t.Helper()
	out, errOut, code := flowRun(t, db, args...)
	if code != 0 {
		t.Fatalf("goldtrace %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	return out
}

// TestFullFlow is the pipeline a team runs, through the commands only:
// import traces, add people, sample a batch for two reviewers, import both
// reviewers' labels (they disagree on some items), read the status, resolve
// every dispute as the lead, export a version, verify it, score the
// production model against it, and check that re-exporting unchanged gold
// writes nothing.
func TestFullFlow(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "gt.db")
	traces := filepath.Join(dir, "traces.jsonl")
	opts := synth.Options{Seed: 11, N: 150}
	var buf bytes.Buffer
	if _, err := synth.Write(&buf, opts); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(traces, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	flowMust(t, db, "import", traces)
	flowMust(t, db, "users", "add", "alice")
	flowMust(t, db, "users", "add", "bob")
	flowMust(t, db, "users", "add", "carol", "--role", "lead")
	out := flowMust(t, db, "sample", "--n", "30", "--seed", "5", "--by", "tool", "--reviewers", "alice,bob", "--batch", "b1", "--json")
	var plan app.SamplePlan
	if err := json.Unmarshal([]byte(out), &plan); err != nil || len(plan.Items) != 30 {
		t.Fatalf("sample plan: %v, %d items", err, len(plan.Items))
	}

	// Both reviewers label every item from the simulated truth; each departs
	// from it on some items, so some items are disputed.
	truth := map[string]synth.Expected{}
	for _, c := range synth.GenerateCases(opts) {
		for _, e := range c.Expected {
			truth[e.ItemID] = e
		}
	}
	var labels bytes.Buffer
	for i, it := range plan.Items {
		for _, r := range []string{"alice", "bob"} {
			l := app.DemoLabel(synth.SimulatedLabel(truth[it.ID], r, 5), "", i)
			l.Rationale = "per the guide"
			b, _ := json.Marshal(l)
			labels.Write(append(b, '\n'))
		}
	}
	labelsFile := filepath.Join(dir, "labels.jsonl")
	os.WriteFile(labelsFile, labels.Bytes(), 0o644)
	if _, errOut, code := flowRun(t, db, "labels", "import", labelsFile, "--as", "carol", "--for-others"); code != 0 {
		t.Fatalf("labels import: exit %d: %s", code, errOut)
	}

	var status struct {
		Items struct {
			Agreed   int `json:"agreed"`
			Disputed int `json:"disputed"`
		} `json:"items"`
	}
	out = flowMust(t, db, "status", "--as", "carol", "--json")
	if err := json.Unmarshal([]byte(out), &status); err != nil {
		t.Fatalf("status json: %v\n%s", err, out)
	}
	agreed, disputed := status.Items.Agreed, status.Items.Disputed
	if agreed+disputed != 30 || disputed == 0 || agreed == 0 {
		t.Fatalf("after both reviewers: %d agreed, %d disputed; want 30 settled with some of each\n%s", agreed, disputed, out)
	}

	// A reviewer cannot resolve; the lead resolves every dispute by picking bob.
	for _, it := range plan.Items {
		_, errOut, code := flowRun(t, db, "resolve", it.ID, "--as", "carol", "--pick", "bob", "--reason", "bob follows the guide")
		if code != 0 && !strings.Contains(errOut, "not disputed") {
			t.Fatalf("resolve %s: exit %d: %s", it.ID, code, errOut)
		}
		if _, errOut, code := flowRun(t, db, "resolve", it.ID, "--as", "alice", "--pick", "bob", "--reason", "x"); code != 2 || errOut == "" {
			t.Fatalf("a reviewer resolving: exit %d %q", code, errOut)
		}
	}

	outDir := filepath.Join(dir, "out")
	flowMust(t, db, "export", "support", "--out", outDir, "--as", "carol", "-m", "first cut")
	file := filepath.Join(outDir, "support-v1.jsonl")
	if out := flowMust(t, db, "verify", file); !strings.Contains(out, "OK") && !strings.Contains(out, "ok") {
		t.Errorf("verify says %q", out)
	}
	var m dataset.Manifest
	mb, err := os.ReadFile(filepath.Join(outDir, "support-v1.manifest.json"))
	if err != nil || json.Unmarshal(mb, &m) != nil {
		t.Fatalf("manifest: %v", err)
	}
	if m.Count != 30 || m.Agreement.PercentAgreement == nil || m.Agreement.KappaTool == nil {
		t.Errorf("manifest count %d, agreement %+v", m.Count, m.Agreement)
	}
	if want := float64(agreed) / 30; math.Abs(*m.Agreement.PercentAgreement-want) > 1e-4 {
		t.Errorf("manifest percent agreement %v, want %v", *m.Agreement.PercentAgreement, want)
	}

	// The production model's own calls, graded against the gold.
	out = flowMust(t, db, "score", "--gold", "support@v1", "--json")
	var rep struct {
		Overall struct {
			Items int `json:"items"`
		} `json:"overall"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Overall.Items != 30 {
		t.Fatalf("score: %v, %d items\n%.400s", err, rep.Overall.Items, out)
	}
	if _, _, code := flowRun(t, db, "score", "--gold", file, "--min", "exact_call=1"); code != 1 {
		t.Errorf("an impossible gate exits %d, want 1", code)
	}

	out = flowMust(t, db, "export", "support", "--out", outDir, "--as", "carol")
	if !strings.Contains(out, "unchanged") && !strings.Contains(out, "nothing") {
		t.Errorf("second export of unchanged gold: %q", out)
	}
	if _, err := os.Stat(filepath.Join(outDir, "support-v2.jsonl")); !os.IsNotExist(err) {
		t.Errorf("an unchanged export wrote v2: %v", err)
	}
}
