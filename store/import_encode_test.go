package store

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/goldtrace/goldtrace/trace"
)

// The rows an encoding lane computes hold the tool list and the metadata
// as json.Marshal writes them (the stored toolsets and metasets were
// written so): HTML characters, invalid UTF-8, U+2028 and control
// characters included, and the same tool list twice in a row.
func TestRowEncoderWritesWhatJSONMarshalDoes(t *testing.T) {
	re := newRowEncoder()
	tools := []trace.Tool{{Name: "b_tool", Parameters: json.RawMessage(`{"type":"object"}`)}, {Name: "a_tool"}}
	metas := []map[string]string{
		{"model": "gpt-4.1", "cohort": "<a & b>"},
		{"user": "bad \xff utf-8", "sep": "line\u2028para\u2029", "ctl": "tab\tnl\n\x01\"q\"\\"},
		{"é": "ü", "": "empty key"},
	}
	for i, meta := range metas {
		for _, ts := range [][]trace.Tool{tools, tools, tools[:1]} {
			tr := trace.Trace{ID: fmt.Sprintf("t%d", i), Metadata: meta, Tools: ts,
				Messages: []trace.Message{{Role: trace.RoleUser, Content: "hi"}, {Role: trace.RoleAssistant, Content: "hello"}}}
			rows, err := re.encode(tr)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(meta)
			if rows.meta != string(want) {
				t.Errorf("metadata %q, want %q", rows.meta, want)
			}
			enc, err := trace.NewEncoder().Encode(tr)
			if err != nil {
				t.Fatal(err)
			}
			want, _ = json.Marshal(enc.ToolHashes)
			if rows.toolset != string(want) {
				t.Errorf("tool list %s, want %s", rows.toolset, want)
			}
			if rows.body != nil || string(rows.messages) != string(enc.Messages) {
				t.Errorf("messages %q (body %v), want %q not compressed yet", rows.messages, rows.body, enc.Messages)
			}
		}
	}
}

// However the lanes interleave, an import's records keep the input's
// order: the bodies without a dictionary are the first ones, those the
// dictionary is made of, and invalid records are reported in line order.
func TestImportLanesKeepTheInputsOrder(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "gt.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	input := bodyTestInput(0, 200, bodyTestPrompt) + "{not json\n" + bodyTestInput(200, 200, bodyTestPrompt) + `{"id":"t5","messages":[]}` + "\n" + bodyTestInput(400, 100, bodyTestPrompt)
	var lines []int
	res, err := st.ImportTraces(ctx, bytesOpener([]byte(input)), ImportOptions{Source: "a.jsonl", SkipInvalid: true,
		OnInvalid: func(e *trace.RecordError) { lines = append(lines, e.Line) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Imported != 500 || fmt.Sprint(lines) != "[201 402]" {
		t.Fatalf("imported %d, invalid lines %v; want 500, [201 402]", res.Imported, lines)
	}
	ids := bodyDictIDs(t, st)
	plain := 0
	for i := 0; i < 500; i++ {
		if ids[fmt.Sprintf("t%d", i)] != 0 {
			break
		}
		plain++
	}
	for i := plain; i < 500; i++ {
		if ids[fmt.Sprintf("t%d", i)] == 0 {
			t.Fatalf("t%d has no dictionary, after t%d that has one", i, plain)
		}
	}
	if plain == 0 || plain == 500 {
		t.Fatalf("%d bodies without a dictionary, want the first ones (64 kB)", plain)
	}
}
