package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSampleFromParquetExport runs sample --from and import on Parquet
// exports written by demo --write-traces, as a user would.
func TestSampleFromParquetExport(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "p.db")
	export := filepath.Join(dir, "export")
	must := func(stdin string, args ...string) string {
		t.Helper()
		out, errOut, code, _ := runCLI(db, stdin, args...)
		if code != 0 {
			t.Fatalf("goldtrace %s: exit %d: %s", strings.Join(args, " "), code, errOut)
		}
		return out
	}
	must("", "init")
	must("", "users", "add", "carol", "--role", "lead")
	for _, u := range []string{"alice", "bob"} {
		must("", "users", "add", u, "--role", "reviewer", "--as", "carol")
	}
	for _, day := range []string{"dt=2026-11-01", "dt=2026-11-02"} {
		os.MkdirAll(filepath.Join(export, day), 0o755)
	}
	must("", "demo", "--write-traces", "60", filepath.Join(export, "dt=2026-11-01", "part-0.parquet"), "--seed", "1")
	must("", "demo", "--write-traces", "60", filepath.Join(export, "dt=2026-11-02", "part-0.parquet"), "--seed", "2")

	var plan struct {
		Sampled    int `json:"sampled"`
		SourceInfo struct {
			Layout string `json:"layout"`
			Files  []struct {
				Name string `json:"name"`
				Rows int    `json:"rows"`
			} `json:"files"`
		} `json:"source_info"`
	}
	out := must("", "sample", "--from", export, "--n", "12", "--by", "tool", "--seed", "4", "--reviewers", "alice,bob", "--json")
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		t.Fatal(err)
	}
	if plan.Sampled != 12 || plan.SourceInfo.Layout != "langfuse" || len(plan.SourceInfo.Files) != 2 || plan.SourceInfo.Files[0].Rows == 0 {
		t.Fatalf("plan %+v", plan)
	}
	if out := must("", "batches"); !strings.Contains(out, "b1: sampled from "+export+" (langfuse, 2 files") {
		t.Fatalf("batches does not say where b1 came from:\n%s", out)
	}

	// Bad input: one line, exit 2, no batch.
	bad := filepath.Join(dir, "bad.parquet")
	os.WriteFile(bad, []byte("PAR1 not really"), 0o644)
	for _, args := range [][]string{
		{"sample", "--from", bad, "--n", "3", "--reviewers", "alice", "--batch", "nope"},
		{"sample", "--from", export, "--format", "openai", "--n", "3", "--reviewers", "alice", "--batch", "nope"},
		{"sample", "--from", filepath.Join(dir, "empty-*.parquet"), "--n", "3", "--reviewers", "alice", "--batch", "nope"},
	} {
		_, errOut, code, _ := runCLI(db, "", args...)
		if code != 2 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("goldtrace %s: exit %d, stderr %q: want exit 2 and one line", strings.Join(args, " "), code, errOut)
		}
	}
	if out := must("", "batches", "--json"); strings.Contains(out, `"nope"`) {
		t.Fatal("a failed sample left a batch")
	}

	ls := filepath.Join(dir, "runs.parquet")
	must("", "demo", "--write-traces", "20", ls, "--layout", "langsmith", "--seed", "9")
	if out := must("", "import", ls); !strings.Contains(out, "imported") {
		t.Fatalf("import: %s", out)
	}
}
