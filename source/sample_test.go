package source

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/goldtrace/goldtrace/sampling"
	"github.com/goldtrace/goldtrace/trace"
	"github.com/goldtrace/goldtrace/trace/synth"
)

// writeExport writes n synthetic traces to path in layout and returns the
// traces' decision points by item id of the row's trace.
func writeExport(t *testing.T, path, layout string, opts synth.Options) []trace.Trace {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := NewWriter(f, layout)
	if err != nil {
		t.Fatal(err)
	}
	traces := synth.Generate(opts)
	for _, tr := range traces {
		if err := w.Write(tr); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return traces
}

// hashesOf maps input hash -> first tool for every decision point of traces.
func hashesOf(traces []trace.Trace) map[string]string {
	out := map[string]string{}
	for _, tr := range traces {
		for _, it := range trace.Items(tr) {
			out[it.InputHash] = it.FirstTool()
		}
	}
	return out
}

func TestSampleRebuildsDecisionsExactly(t *testing.T) {
	for _, layout := range Layouts {
		t.Run(layout, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "export.parquet")
			traces := writeExport(t, path, layout, synth.Options{Seed: 3, N: 120})
			want := hashesOf(traces)
			opts := Options{Spec: path, Seed: 7, N: 40, By: "tool", Alloc: sampling.AllocProportional}
			res, err := Sample(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.Info.Layout != layout {
				t.Fatalf("layout %q, want %q", res.Info.Layout, layout)
			}
			if len(res.Sample.Items) != 40 {
				t.Fatalf("sampled %d items, want 40", len(res.Sample.Items))
			}
			seen := map[string]bool{}
			for _, c := range res.Sample.Items {
				tool, ok := want[c.InputHash]
				if !ok {
					t.Fatalf("item %s (%s#%d): input hash %s is no decision point of the JSONL traces", c.ItemID, c.TraceID, c.Turn, c.InputHash)
				}
				if tool != c.Stratum {
					t.Fatalf("item %s: stratum %q, the JSONL trace's first tool is %q", c.ItemID, c.Stratum, tool)
				}
				if seen[c.InputHash] {
					t.Fatalf("input %s sampled twice", c.InputHash)
				}
				seen[c.InputHash] = true
			}
			again, err := Sample(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			for i := range again.Sample.Items {
				if again.Sample.Items[i] != res.Sample.Items[i] {
					t.Fatalf("second draw differs at %d: %+v vs %+v", i, again.Sample.Items[i], res.Sample.Items[i])
				}
			}
			if res.Info.BytesRead <= 0 || layout == Langfuse && res.Info.BytesRead >= res.Info.BytesTotal {
				t.Fatalf("read %d of %d bytes", res.Info.BytesRead, res.Info.BytesTotal)
			}
			t.Logf("read %d of %d bytes (%.1f%%)", res.Info.BytesRead, res.Info.BytesTotal, 100*float64(res.Info.BytesRead)/float64(res.Info.BytesTotal))
		})
	}
}
