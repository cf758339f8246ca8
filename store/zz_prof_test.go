package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkZZFile(b *testing.B) {
	data, err := os.ReadFile("/tmp/imp2/s.jsonl")
	if err != nil {
		b.Skip()
	}
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		st, _ := Open(context.Background(), filepath.Join(b.TempDir(), "x.db"))
		if _, err := st.ImportTraces(context.Background(), bytesOpener(data), ImportOptions{}); err != nil {
			b.Fatal(err)
		}
		st.Close()
	}
}
