package outfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.jsonl")
	if err := os.WriteFile(path, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A failed fill leaves the old file and no temporary file.
	boom := errors.New("boom")
	err := Write(path, nil, func(w io.Writer) error { io.WriteString(w, "half"); return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("err %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Fatalf("after a failure: %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("left behind: %v", ents)
	}
	if err := Write(path, nil, func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if b, _ := os.ReadFile(path); err != nil || string(b) != "new\n" || fi.Mode().Perm() != 0o644 {
		t.Fatalf("written: %q, mode %v, %v", b, fi.Mode(), err)
	}
	// "-" is stdout; a device is written in place, never replaced.
	var out bytes.Buffer
	if err := Write("-", &out, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }); err != nil || out.String() != "x" {
		t.Fatalf("stdout: %q %v", out.String(), err)
	}
	if err := Write(os.DevNull, nil, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode().IsRegular() {
		t.Fatalf("%s replaced: %v %v", os.DevNull, fi.Mode(), err)
	}
}
