package source

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/goldtrace/goldtrace/sampling"
	"github.com/goldtrace/goldtrace/trace/synth"
)

// FuzzParquetSource feeds damaged exports to sample and import: they may
// fail, in one line, but never panic or hang.
func FuzzParquetSource(f *testing.F) {
	dir := f.TempDir()
	for _, layout := range Layouts {
		p := filepath.Join(dir, layout+".parquet")
		out, err := os.Create(p)
		if err != nil {
			f.Fatal(err)
		}
		if _, err := WriteSynth(out, layout, synth.Options{Seed: 1, N: 3}); err != nil {
			f.Fatal(err)
		}
		out.Close()
		data, _ := os.ReadFile(p)
		f.Add(data, uint16(0), byte(0))
		f.Add(data, uint16(len(data)/2), byte(0xff))
		f.Add(data, uint16(len(data)-12), byte(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, at uint16, b byte) {
		if len(data) > 0 {
			data[int(at)%len(data)] ^= b
		}
		p := filepath.Join(t.TempDir(), "x.parquet")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		Sample(context.Background(), Options{Spec: p, Seed: 1, N: 2, By: "tool", Alloc: sampling.AllocProportional})
		if r, err := Open(context.Background(), p, "", ""); err == nil {
			for i := 0; i < 100; i++ {
				if _, err := r.Next(); err != nil {
					break
				}
			}
			r.Close()
		}
	})
}
