package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A killed export's hidden temporary files are removed by the next export,
// and a stored version whose files never reached --out is written instead
// of "nothing changed".
func TestExportCleansUpAfterAKilledExport(t *testing.T) {
	dir := t.TempDir()
	db, out := filepath.Join(dir, "gt.db"), filepath.Join(dir, "out")
	expSeed(t, db, expGolds())
	if _, stderr, code := expRun(t, db, "export", "support", "--out", out, "--as", "carol"); code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	// As a crash between the commit and the rename leaves it, and with the
	// temporary files of a killed export beside it.
	for _, f := range []string{"support-v1.jsonl", "support-v1.manifest.json"} {
		if err := os.Remove(filepath.Join(out, f)); err != nil {
			t.Fatal(err)
		}
	}
	stale := filepath.Join(out, ".support-v2.jsonl.tmp-123456")
	if err := os.WriteFile(stale, []byte("half a dataset"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := expRun(t, db, "export", "support", "--out", out, "--as", "carol")
	if code != 0 || !strings.Contains(stderr, "v1 had no files") || !strings.Contains(stdout, "wrote support@v1") {
		t.Fatalf("export after a crash: exit %d\n%s%s", code, stdout, stderr)
	}
	if stdout, _, code := expRun(t, db, "verify", filepath.Join(out, "support-v1.jsonl")); code != 0 || !strings.HasPrefix(stdout, "OK ") {
		t.Errorf("verify the re-written v1: exit %d: %s", code, stdout)
	}
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "support-v1.jsonl support-v1.manifest.json" {
		t.Errorf("--out holds %v", names)
	}
}
