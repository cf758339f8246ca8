package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/internal/shareddata"
	"github.com/goldtrace/goldtrace/trace"
	"github.com/goldtrace/goldtrace/trace/synth"
)

// oddTraces are traces whose text the stored-bytes fast paths of the
// dataset builder must either reproduce exactly or decline.
func oddTraces() []trace.Trace {
	call := func(args string) trace.Call { return trace.NewCall("c1", "lookup", args) }
	tools := []trace.Tool{{Name: "lookup", Description: "Look <things> up & more.", Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)}}
	texts := []string{
		"plain",
		"html <b>bold</b> & \"quotes\" \\ back\\slash",
		"line\nbreak\ttab\u2028sep\u2029para",
		"invalid \xff\xfe utf-8 \xc3",
		"emoji 🙂 and accents é ñ 日本",
		"\x00\x01 control",
		"already escaped \\ufffd text",
	}
	var out []trace.Trace
	for i, text := range texts {
		out = append(out, trace.Trace{
			ID:       "tr_odd_" + string(rune('a'+i)),
			Metadata: map[string]string{"note": text, "cohort": "x<y&z", "empty": ""},
			Tools:    tools,
			Messages: []trace.Message{
				{Role: trace.RoleSystem, Content: text},
				{Role: trace.RoleUser, Content: text},
				{Role: trace.RoleAssistant, Content: text, ToolCalls: []trace.Call{call(`{"q":"` + text + `"}`), call(text), call(`{"b":1,"a":[1.50,2e3,"` + text + `"]}`)}},
				{Role: trace.RoleTool, ToolCallID: "c1", Name: "lookup", Content: text},
				{Role: trace.RoleAssistant, Content: "done: " + text},
			},
		})
	}
	out = append(out, trace.Trace{ID: "tr_odd_bare", Messages: []trace.Message{{Role: trace.RoleUser, Content: "hi"}, {Role: trace.RoleAssistant}}})
	return out
}

// TestStoredPartsBuildAsDecoded checks the dataset builder's fast paths on
// what the store really holds: every gold record built from the stored
// messages, metadata and tool key is byte for byte the record built from
// the decoded trace, for generated traces, the import fixtures, the shared
// conformance data (when present) and odd text.
func TestStoredPartsBuildAsDecoded(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	traces := append(oddTraces(), synth.Generate(synth.Options{N: 200, Seed: 7})...)
	files, _ := filepath.Glob(filepath.Join("..", "trace", "testdata", "*.json*"))
	if dir, ok := shareddata.Dir(); ok {
		more, _ := filepath.Glob(filepath.Join(dir, "*", "*.json*"))
		files = append(files, more...)
	}
	for _, f := range files {
		r, c, err := trace.OpenFile(f, trace.FormatAuto, nil)
		if err != nil {
			continue // not a trace file (tool lists, schemas)
		}
		for {
			tr, err := r.Next()
			var rerr *trace.RecordError
			if errors.As(err, &rerr) {
				continue
			}
			if err != nil {
				if err != io.EOF {
					t.Logf("%s: %v", f, err)
				}
				break
			}
			traces = append(traces, tr)
		}
		c.Close()
	}
	seen := map[string]bool{}
	err := st.WithTx(ctx, func(tx *Tx) error {
		for _, tr := range traces {
			if seen[tr.ID] {
				continue
			}
			seen[tr.ID] = true
			if _, err := st.InsertTrace(ctx, tx, tr, "fixture"); err != nil {
				return err
			}
		}
		// Every decision point is gold.
		_, err := tx.ExecContext(ctx, `INSERT INTO gold(item_id, status, decision, calls, acceptable, rationale, reviewers, adjudicator, guide_version, updated_at)
			SELECT id, 'agreed', 'no_call', '[]', '[]', 'r', '["alice","bob"]', '', 'g_000000000001', 'now' FROM items`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	tgs, err := st.GoldTraces(ctx, GoldFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tgs) < 200 {
		t.Fatalf("%d traces with gold", len(tgs))
	}
	fast, slow := dataset.NewBuilder(), dataset.NewBuilder()
	records := 0
	for _, tg := range tgs {
		got, err := fast.Lines(tg)
		if err != nil {
			t.Fatalf("trace %s: %v", tg.Trace.ID, err)
		}
		decoded := tg
		if err := json.Unmarshal(tg.MessagesJSON, &decoded.Trace.Messages); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(tg.MetadataJSON, &decoded.Trace.Metadata); err != nil {
			t.Fatal(err)
		}
		decoded.MessagesJSON, decoded.MetadataJSON, decoded.ToolsKey = nil, nil, ""
		want, err := slow.Lines(decoded)
		if err != nil {
			t.Fatalf("trace %s decoded: %v", tg.Trace.ID, err)
		}
		if len(got) != len(want) {
			t.Fatalf("trace %s: %d lines, decoded %d", tg.Trace.ID, len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i].Bytes(), want[i].Bytes()) {
				t.Fatalf("trace %s record %s from stored bytes\n%s\nfrom the decoded trace\n%s", tg.Trace.ID, got[i].ID, got[i].Bytes(), want[i].Bytes())
			}
			records++
		}
	}
	t.Logf("%d traces, %d records (%d input files)", len(tgs), records, len(files))
}
