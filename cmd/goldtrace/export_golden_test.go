package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/store"
)

// expGoldenSHA256 is the sha256 of support-v1.jsonl exported from expGolds
// in the first record format (gold.RecordFormat1), computed before the
// export path was optimised: a faster export must still write exactly
// these bytes, and a version exported in that format keeps them.
const expGoldenSHA256 = "3f430f141e7a85401ba449b628e8f07476cdb0f59c3e86a9deff8e07b827c42a"

// expGoldenV2SHA256 is the same gold in gold.RecordFormat2 (a "catalogue"
// member in every record).
const expGoldenV2SHA256 = "d45333dd04d7b18ac97832d0d77e805161ba2fe8a3d617ed5b7048c79bc93880"

func TestExportBytesMatchTheGoldenHash(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "gt.db")
	expSeed(t, db, expGolds())
	if _, stderr, code := expRun(t, db, "export", "support", "--out", dir, "--as", "carol"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	jsonl := expRead(t, filepath.Join(dir, "support-v1.jsonl"))
	if got := dataset.RecordHash(jsonl); got != expGoldenV2SHA256 {
		t.Errorf("support-v1.jsonl sha256 = %s, want %s (the exported bytes changed)", got, expGoldenV2SHA256)
	}
	again := filepath.Join(dir, "again")
	if _, stderr, code := expRun(t, db, "export", "support@v1", "--out", again); code != 0 {
		t.Fatalf("re-materialise: exit %d: %s", code, stderr)
	}
	if got := dataset.RecordHash(expRead(t, filepath.Join(again, "support-v1.jsonl"))); got != expGoldenV2SHA256 {
		t.Errorf("re-materialised support-v1.jsonl sha256 = %s, want %s", got, expGoldenV2SHA256)
	}
}

// TestOldRecordFormatStaysAndUpgradesWithoutChanges: a version exported
// in the first record format (as goldtrace wrote before the catalogue
// member) keeps its bytes; the next export of unchanged gold is no new
// version, a forced one is in the current format with no item changed,
// and diff names none; a changed item is the only one named.
func TestOldRecordFormatStaysAndUpgradesWithoutChanges(t *testing.T) {
	dir := t.TempDir()
	db, out := filepath.Join(dir, "gt.db"), filepath.Join(dir, "out")
	expSeed(t, db, expGolds())
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	a := app.New(st)
	carol, err := a.LocalActor(ctx, "carol")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Export(ctx, carol, "support", app.ExportOptions{Out: out, RecordFormat: gold.RecordFormat1}, app.ExportIO{}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if got := dataset.RecordHash(expRead(t, filepath.Join(out, "support-v1.jsonl"))); got != expGoldenSHA256 {
		t.Fatalf("format 1 support-v1.jsonl sha256 = %s, want %s", got, expGoldenSHA256)
	}
	if m := expManifest(t, filepath.Join(out, "support-v1.manifest.json")); m.RecordFormat != 0 {
		t.Errorf("format 1 manifest says record_format %d", m.RecordFormat)
	}
	// Re-exported, verified and read as it was.
	again := filepath.Join(dir, "again")
	if _, errs, code := expRun(t, db, "export", "support@v1", "--out", again); code != 0 ||
		dataset.RecordHash(expRead(t, filepath.Join(again, "support-v1.jsonl"))) != expGoldenSHA256 {
		t.Fatalf("support@v1 re-exported: exit %d %s", code, errs)
	}
	if stdout, _, code := expRun(t, db, "verify", filepath.Join(again, "support-v1.jsonl")); code != 0 {
		t.Errorf("verify format 1: %s", stdout)
	}
	if stdout, errs, code := expRun(t, db, "export", "support", "--as", "carol", "--out", out); code != 0 || !strings.Contains(stdout, "nothing changed") {
		t.Errorf("unchanged gold after an upgrade: exit %d %s%s", code, stdout, errs)
	}
	stdout, errs, code := expRun(t, db, "export", "support", "--as", "carol", "--out", out, "--force")
	if code != 0 || !strings.Contains(stdout, "(0 added, 0 removed, 0 changed)") {
		t.Fatalf("forced export: exit %d %s%s", code, stdout, errs)
	}
	if got := dataset.RecordHash(expRead(t, filepath.Join(out, "support-v2.jsonl"))); got != expGoldenV2SHA256 {
		t.Errorf("v2 sha256 = %s, want %s", got, expGoldenV2SHA256)
	}
	if m := expManifest(t, filepath.Join(out, "support-v2.manifest.json")); m.RecordFormat != gold.RecordFormat2 {
		t.Errorf("v2 manifest record_format %d", m.RecordFormat)
	}
	var d dataset.Diff
	diff, errs, code := expRun(t, db, "diff", "support@v1", "support@v2", "--json")
	if err := json.Unmarshal([]byte(diff), &d); code != 0 || err != nil || len(d.Changed)+len(d.Added)+len(d.Removed) != 0 {
		t.Errorf("diff across formats: exit %d %v %s%s", code, err, diff, errs)
	}
	// The scorer reads both formats alike.
	s1, _, c1 := expRun(t, db, "score", "--gold", "support@v1", "--format", "json")
	s2, _, c2 := expRun(t, db, "score", "--gold", "support@v2", "--format", "json")
	if c1 != c2 || s1 == "" || strings.ReplaceAll(s1, "support@v1", "support@v2") != s2 {
		t.Errorf("score of v1 (exit %d) and v2 (exit %d) differ:\n%s\n%s", c1, c2, s1, s2)
	}
	// The datasets list says which format each version has.
	if list, _, _ := expRun(t, db, "datasets", "--json"); !strings.Contains(list, `"record_format": 1`) || !strings.Contains(list, `"record_format": 2`) {
		t.Errorf("datasets --json: %s", list)
	}
}
