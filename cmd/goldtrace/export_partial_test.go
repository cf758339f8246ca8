package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/dataset"
)

// TestExportRefusesPartialVersion: while items of the selected batches are
// still open, export says how many and writes nothing; --allow-partial
// exports the gold there is and says what is left out.
func TestExportRefusesPartialVersion(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "goldtrace.db")
	if _, errOut, code := expRun(t, db, "demo", "--no-tui", "--dir", dir, "--traces", "100", "--batch-items", "20", "--prelabeled", "12"); code != 0 {
		t.Fatalf("demo: %s", errOut)
	}
	out := filepath.Join(dir, "out")
	_, errOut, code := expRun(t, db, "export", "support", "--as", "carol", "--out", out)
	if code != 2 || !strings.Contains(errOut, "items of all batches are still open (0 not started, 8 being labeled, ") ||
		!strings.Contains(errOut, "--allow-partial") {
		t.Fatalf("partial export: exit %d, %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(out, dataset.FileName("support", 1))); err == nil {
		t.Fatal("a refused export wrote its file")
	}
	_, errOut, code = expRun(t, db, "export", "support", "--as", "carol", "--out", out, "--batch", "demo", "--allow-partial")
	if code != 0 || !strings.Contains(errOut, "items of batch demo are still open") || !strings.Contains(errOut, "not in this version") {
		t.Fatalf("--allow-partial: exit %d, %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(out, dataset.FileName("support", 1))); err != nil {
		t.Fatal(err)
	}
}
