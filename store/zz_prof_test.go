package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestZZProfImport(t *testing.T) {
	data, _ := os.ReadFile("/tmp/importer/20mb.jsonl")
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.ImportTraces(context.Background(), bytesOpener(data), ImportOptions{Source: "x"}); err != nil {
		t.Fatal(err)
	}
}
