package input

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "a.jsonl")
	if err := os.WriteFile(plain, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, size, err := Open(plain, nil)
	if err != nil || size != 3 {
		t.Fatalf("Open: size %d, %v", size, err)
	}
	r.Close()
	for path, want := range map[string]string{filepath.Join(dir, "none"): "no such file", dir: "is a directory"} {
		if _, _, err := Open(path, nil); err == nil || err.Error() != want {
			t.Errorf("Open(%s): %v, want %q", path, err, want)
		}
	}
	r, size, err = Open("-", strings.NewReader("x"))
	if err != nil || size != 0 {
		t.Fatalf("stdin: %d %v", size, err)
	}
	if b, _ := io.ReadAll(r); string(b) != "x" {
		t.Errorf("stdin read %q", b)
	}
}

func TestOpenDataGzipAndCounted(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte("hello\n"))
	zw.Close()
	path := filepath.Join(t.TempDir(), "a.jsonl.gz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := OpenData(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var n int64
	b, err := io.ReadAll(Counted(r, func(k int64) { n += k }))
	if err != nil || string(b) != "hello\n" || n != 6 {
		t.Errorf("read %q (%d counted), %v", b, n, err)
	}
	bad := filepath.Join(t.TempDir(), "b.gz")
	os.WriteFile(bad, []byte("not gzip"), 0o644)
	if _, err := OpenData(bad, nil); err == nil {
		t.Error("a .gz that is not gzip opened")
	}
}
