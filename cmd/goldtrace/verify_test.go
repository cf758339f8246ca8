package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// vfyExport exports the standard fixture and returns the JSONL path (the
// database is gt.db beside it).
func vfyExport(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	db := filepath.Join(dir, "gt.db")
	expSeed(t, db, expGolds())
	if _, stderr, code := expRun(t, db, "export", "support", "--out", dir, "--as", "carol"); code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	return filepath.Join(dir, "support-v1.jsonl")
}

func TestVerifyDetectsOneChangedByte(t *testing.T) {
	file := vfyExport(t)
	orig, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	stdout, _, code := expRun(t, "unused.db", "verify", file)
	if code != 0 || strings.Count(stdout, "\n") != 1 || !strings.Contains(stdout, "4 records") {
		t.Fatalf("clean file: exit %d: %q", code, stdout)
	}
	lines := bytes.SplitAfter(orig, []byte("\n"))
	offsetOfLine3 := len(lines[0]) + len(lines[1])
	tests := []struct {
		name   string
		offset int // byte to change
		to     byte
		want   string
	}{
		{"value on line 3", offsetOfLine3 + bytes.Index(lines[2], []byte("per the guide")), 'P', ":3: record"},
		{"structure on line 1", bytes.IndexByte(orig, ':'), ';', ":1: not a JSON object"},
		{"newline joins lines 2 and 3", offsetOfLine3 - 1, ' ', ":2: "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tampered := append([]byte(nil), orig...)
			tampered[tc.offset] = tc.to
			if err := os.WriteFile(file, tampered, 0o644); err != nil {
				t.Fatal(err)
			}
			_, stderr, code := expRun(t, "unused.db", "verify", file)
			if code != 1 || !strings.Contains(stderr, file+tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 1 naming %s%s", code, stderr, file, tc.want)
			}
		})
	}
	if err := os.WriteFile(file, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	// Against another version's manifest, the first line already differs.
	manifest := strings.TrimSuffix(file, ".jsonl") + ".manifest.json"
	mb, _ := os.ReadFile(manifest)
	var m map[string]any
	_ = json.Unmarshal(mb, &m)
	m["sha256"] = strings.Repeat("0", 64)
	mb, _ = json.Marshal(m)
	other := filepath.Join(t.TempDir(), "other.manifest.json")
	if err := os.WriteFile(other, mb, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := expRun(t, "unused.db", "verify", file, "--manifest", other); code != 1 || !strings.Contains(stderr, "sha256") {
		t.Errorf("wrong manifest: exit %d %s", code, stderr)
	}
	os.Remove(manifest)
	if _, stderr, code := expRun(t, "unused.db", "verify", file); code != 1 || !strings.Contains(stderr, "no manifest beside it") {
		t.Errorf("missing manifest: exit %d %s", code, stderr)
	}
	if stdout, _, code := expRun(t, "unused.db", "verify", file, "--no-manifest", "--json"); code != 0 || !strings.Contains(stdout, `"ok": true`) {
		t.Errorf("--no-manifest: exit %d %s", code, stdout)
	}
	if _, _, code := expRun(t, "unused.db", "verify", filepath.Join(t.TempDir(), "missing.jsonl")); code != 2 {
		t.Errorf("missing file: exit %d, want 2", code)
	}
}

func TestVerifyStoredVersion(t *testing.T) {
	file := vfyExport(t)
	db := filepath.Join(filepath.Dir(file), "gt.db")
	stdout, stderr, code := expRun(t, db, "verify", "support@v1")
	if code != 0 || !strings.HasPrefix(stdout, "OK support@v1: 4 records") {
		t.Errorf("stored v1: exit %d %s%s", code, stdout, stderr)
	}
	if _, stderr, code := expRun(t, db, "verify", "support@v2"); code != 2 || !strings.Contains(stderr, "no such dataset version") {
		t.Errorf("missing version: exit %d %s", code, stderr)
	}
}
