package main

import (
	"path/filepath"
	"testing"

	"github.com/goldtrace/goldtrace/dataset"
)

// expGoldenSHA256 is the sha256 of support-v1.jsonl exported from expGolds,
// computed before the export path was optimised: a faster export must still
// write exactly these bytes.
const expGoldenSHA256 = "3f430f141e7a85401ba449b628e8f07476cdb0f59c3e86a9deff8e07b827c42a"

func TestExportBytesMatchTheGoldenHash(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "gt.db")
	expSeed(t, db, expGolds())
	if _, stderr, code := expRun(t, db, "export", "support", "--out", dir, "--as", "carol"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	jsonl := expRead(t, filepath.Join(dir, "support-v1.jsonl"))
	if got := dataset.RecordHash(jsonl); got != expGoldenSHA256 {
		t.Errorf("support-v1.jsonl sha256 = %s, want %s (the exported bytes changed)", got, expGoldenSHA256)
	}
	again := filepath.Join(dir, "again")
	if _, stderr, code := expRun(t, db, "export", "support@v1", "--out", again); code != 0 {
		t.Fatalf("re-materialise: exit %d: %s", code, stderr)
	}
	if got := dataset.RecordHash(expRead(t, filepath.Join(again, "support-v1.jsonl"))); got != expGoldenSHA256 {
		t.Errorf("re-materialised support-v1.jsonl sha256 = %s, want %s", got, expGoldenSHA256)
	}
}
