package source

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/goldtrace/goldtrace/sampling"
	"github.com/goldtrace/goldtrace/trace/synth"
)

type partialRow struct {
	ID   string `parquet:"id"`
	Type string `parquet:"type"`
}

func writeRows[T any](t *testing.T, path string, rows []T) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[T](f)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestBadInputIsOneLineNamingWhere(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.parquet")
	writeExport(t, good, Langfuse, synth.Options{Seed: 1, N: 5})
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name  string
		setup func(t *testing.T, dir string) string
		want  []string
	}{
		{"missing column", func(t *testing.T, d string) string {
			p := filepath.Join(d, "partial.parquet")
			writeRows(t, p, []partialRow{{ID: "a", Type: "GENERATION"}})
			return p
		}, []string{"partial.parquet", "no column"}},
		{"truncated", func(t *testing.T, d string) string {
			p := filepath.Join(d, "cut.parquet")
			os.WriteFile(p, data[:len(data)/2], 0o644)
			return p
		}, []string{"cut.parquet", "corrupt or truncated"}},
		{"not parquet", func(t *testing.T, d string) string {
			p := filepath.Join(d, "text.parquet")
			os.WriteFile(p, []byte(`{"id":"x"}`+"\n"), 0o644)
			return p
		}, []string{"text.parquet", "not a readable Parquet file"}},
		{"bad JSON row", func(t *testing.T, d string) string {
			p := filepath.Join(d, "badjson.parquet")
			rows, err := langfuseRows(synth.Generate(synth.Options{Seed: 1, N: 1})[0])
			if err != nil {
				t.Fatal(err)
			}
			for i := range rows {
				if rows[i].Type == "GENERATION" {
					rows[i].Input = `[{"role":"user","content":` // cut short
				}
			}
			writeRows(t, p, rows)
			return p
		}, []string{"badjson.parquet", "row group 0", "row ", "input: JSON that does not parse"}},
		{"mixed layouts", func(t *testing.T, d string) string {
			sub := filepath.Join(d, "mixed")
			os.Mkdir(sub, 0o755)
			writeExport(t, filepath.Join(sub, "a.parquet"), Langfuse, synth.Options{Seed: 1, N: 2})
			writeExport(t, filepath.Join(sub, "b.parquet"), LangSmith, synth.Options{Seed: 1, N: 2})
			return sub
		}, []string{"mixed layouts", "a.parquet", "b.parquet"}},
		{"empty directory", func(t *testing.T, d string) string {
			sub := filepath.Join(d, "empty")
			os.Mkdir(sub, 0o755)
			return sub
		}, []string{"empty", "no .parquet files"}},
		{"no match", func(t *testing.T, d string) string { return filepath.Join(d, "nothing-*.parquet") },
			[]string{"nothing-*.parquet", "no files match"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec := c.setup(t, t.TempDir())
			_, err := Sample(context.Background(), Options{Spec: spec, Seed: 1, N: 3, Alloc: sampling.AllocProportional})
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Fatalf("error is not one line: %q", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Fatalf("error %q does not say %q", msg, w)
				}
			}
		})
	}
}
