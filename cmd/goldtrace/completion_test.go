package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompletion asks the shell completion (what the generated scripts run)
// for the values that live in the database.
func TestCompletion(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "goldtrace.db")
	if _, errOut, code := expRun(t, db, "demo", "--no-tui", "--dir", dir, "--traces", "60", "--batch-items", "12", "--prelabeled", "12"); code != 0 {
		t.Fatalf("demo: %s", errOut)
	}
	if _, errOut, code := expRun(t, db, "export", "support", "--as", "carol", "--out", dir, "--allow-partial"); code != 0 {
		t.Fatalf("export: %s", errOut)
	}
	tests := []struct {
		args []string
		want []string
		not  []string
	}{
		{[]string{"label", "--as", ""}, []string{"alice", "bob"}, []string{"carol"}},
		{[]string{"adjudicate", "--as", ""}, []string{"carol"}, []string{"alice"}},
		{[]string{"status", "--as", "a"}, []string{"alice"}, []string{"bob"}},
		{[]string{"sample", "--reviewers", "alice,"}, []string{"alice,bob"}, []string{"alice,alice"}},
		{[]string{"export", ""}, []string{"support", "support@v1"}, nil},
		{[]string{"diff", "support@v1", ""}, []string{"support@v1"}, nil},
		{[]string{"score", "--gold", ""}, []string{"support@v1"}, nil},
		{[]string{"status", "--batch", ""}, []string{"demo"}, nil},
		{[]string{"export", "--format", ""}, []string{"promptfoo", "bfcl", "hf", "inspect", "deepeval", "openai-evals"}, nil},
		{[]string{"score", "--format", ""}, []string{"junit", "markdown"}, nil},
		{[]string{"score", "--profile", ""}, []string{"default", "bfcl", "tutorial", "futureagi", "pipeline"}, nil},
		{[]string{"sample", "--by", ""}, []string{"tool", "meta.cohort"}, nil},
		{[]string{"score", "--by", ""}, []string{"meta.cohort"}, []string{"tool"}},
	}
	for _, tc := range tests {
		out, errOut, code := expRun(t, db, append([]string{"__complete"}, tc.args...)...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", tc.args, code, errOut)
			continue
		}
		got := map[string]bool{}
		for _, l := range strings.Split(out, "\n") {
			got[l] = true
		}
		for _, w := range tc.want {
			if !got[w] {
				t.Errorf("%v: %q not offered:\n%s", tc.args, w, out)
			}
		}
		for _, w := range tc.not {
			if got[w] {
				t.Errorf("%v: %q offered:\n%s", tc.args, w, out)
			}
		}
	}
}

// TestCompletionWithoutDatabase: completion never creates a database; asked
// on a missing one it says so in one line and exits 2.
func TestCompletionWithoutDatabase(t *testing.T) {
	db := filepath.Join(t.TempDir(), "missing.db")
	_, errOut, code := expRun(t, db, "__complete", "label", "--as", "")
	if code != 2 || !strings.Contains(errOut, "goldtrace: no goldtrace database at "+db) {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("completion created the database")
	}
	// Fixed choices need no database.
	out, _, code := expRun(t, db, "__complete", "score", "--profile", "")
	if code != 0 || !strings.Contains(out, "bfcl") {
		t.Errorf("--profile without a database: exit %d, %q", code, out)
	}
}
