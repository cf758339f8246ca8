package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/trace"
)

func TestDiffFilesAndStoredVersionsAgree(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "gt.db")
	expSeed(t, db, expGolds())
	if _, stderr, code := expRun(t, db, "export", "support", "--out", dir, "--as", "carol"); code != 0 {
		t.Fatal(stderr)
	}
	if err := expExec(t, db, `UPDATE gold SET calls = ? WHERE item_id = ?`, `[{"tool":"get_order_status","args":{"order_id":"ORD-1"}}]`,
		trace.ItemID("tr_2r", 2)); err != nil {
		t.Fatal(err)
	}
	if err := expExec(t, db, `UPDATE gold SET rationale = 'changed mind' WHERE item_id = ?`, trace.ItemID("tr_1", 4)); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := expRun(t, db, "export", "support", "--out", dir, "--as", "carol"); code != 0 {
		t.Fatal(stderr)
	}
	stored, _, code := expRun(t, db, "diff", "support@v1", "support@v2", "--json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	files, _, code := expRun(t, db, "diff", filepath.Join(dir, "support-v1.jsonl"), filepath.Join(dir, "support-v2.jsonl"), "--json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var a, b app.DiffResult
	if err := json.Unmarshal([]byte(stored), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(files), &b); err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(a.Diff)
	jb, _ := json.Marshal(b.Diff)
	if string(ja) != string(jb) {
		t.Errorf("stored and file diffs differ:\n%s\n%s", ja, jb)
	}
	kinds := map[string]string{}
	for _, c := range a.Changed {
		kinds[c.ID] = strings.Join(c.Kinds, ",")
	}
	if kinds[trace.ItemID("tr_2r", 2)] != "tool,args,rules" || kinds[trace.ItemID("tr_1", 4)] != "rationale" || len(kinds) != 2 {
		t.Errorf("kinds %v", kinds)
	}
	// A file that is not a dataset is bad input.
	junk := filepath.Join(dir, "junk.jsonl")
	if err := os.WriteFile(junk, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := expRun(t, db, "diff", junk, "support@v1"); code != 2 || !strings.Contains(stderr, junk+":1:") {
		t.Errorf("junk: exit %d %s", code, stderr)
	}
}
