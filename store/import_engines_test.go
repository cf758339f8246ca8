package store

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/trace/synth"
)

// TestImportIsTheSameOnBothEngines: synthetic traces (metadata of their
// own, shared tool lists) imported in chunks of a few hundred, so that
// PostgreSQL's batched statements (multi-row inserts of a chunk's rest,
// metadata stored ahead in one statement) all run, read back the same on
// PostgreSQL as on SQLite; imported again, every one is already stored.
func TestImportIsTheSameOnBothEngines(t *testing.T) {
	traces := synth.Generate(synth.Options{Seed: 11, N: 700})
	var input []byte
	for i, tr := range traces {
		if i%3 == 0 {
			tr.Metadata = map[string]string{"team": "a"} // shared by many
		}
		b, err := json.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		input = append(append(input, b...), '\n')
	}
	ctx := context.Background()
	var stored [2][]any
	for e, engine := range engineNames {
		st := openEngine(t, engine)
		opt := ImportOptions{Source: "synth.jsonl", pace: importPace{chunkTraces: 300, chunkTime: 500 * time.Millisecond, yield: time.Millisecond}}
		res, err := st.ImportTraces(ctx, bytesOpener(input), opt)
		if err != nil {
			t.Fatalf("%s: %v", engine, err)
		}
		if res.Imported != len(traces) || res.Items == 0 {
			t.Fatalf("%s: %+v", engine, res)
		}
		for _, tr := range traces {
			got, err := st.Trace(ctx, tr.ID)
			if err != nil {
				t.Fatalf("%s: %v", engine, err)
			}
			stored[e] = append(stored[e], got)
		}
		stored[e] = append(stored[e], countRows(t, st, "items"), countRows(t, st, "metasets"), countRows(t, st, "toolsets"))
		again, err := st.ImportTraces(ctx, bytesOpener(input), opt)
		if err != nil || again.Imported != 0 || again.Duplicates != len(traces) {
			t.Fatalf("%s: import again: %+v %v", engine, again, err)
		}
		if n := countRows(t, st, "metasets"); n != stored[e][len(stored[e])-2] {
			t.Fatalf("%s: importing again added metadata rows: %d", engine, n)
		}
	}
	if len(stored[1]) == 0 {
		return // PostgreSQL skipped
	}
	if !reflect.DeepEqual(stored[0], stored[1]) {
		n := len(stored[0])
		t.Fatalf("PostgreSQL stored otherwise than SQLite: items, metasets, toolsets %v vs %v", stored[1][n-3:], stored[0][n-3:])
	}
}
