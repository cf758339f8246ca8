package dataset

import (
	"context"
	"strings"
	"testing"
)

func TestReadRecords(t *testing.T) {
	const ok = `{"id":"it_1","input":{"messages":[{"role":"user","content":"hi"}]},"available_tools":[],"expected_tool":"t","expected_args":{"a":1},"expected_calls":[{"tool":"t","args":{"a":1}}]}`
	tests := []struct {
		name, in, err string
		n             int
	}{
		{"one record and blank lines", ok + "\n\n", "", 1},
		{"no id", `{"expected_calls":[]}`, "gold.jsonl:1: gold record without id", 0},
		{"duplicate id", ok + "\n" + ok + "\n", "gold.jsonl:2: duplicate id it_1 (first on line 1)", 0},
		{"not json", "{nope\n", "gold.jsonl:1: not a gold record", 0},
		{"args not an object", `{"id":"it_2","expected_calls":[{"tool":"t","args":[1]}]}`, "gold.jsonl:1: expected call t: args must be a JSON object", 0},
		{"call without tool", `{"id":"it_3","expected_calls":[{"args":{}}]}`, "gold.jsonl:1: expected call without a tool name", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, hashes, err := ReadRecords(context.Background(), strings.NewReader(tt.in), "gold.jsonl", true, nil)
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || len(recs) != tt.n || len(hashes) != tt.n {
				t.Fatalf("%d records, %d hashes, %v", len(recs), len(hashes), err)
			}
			if recs[0].ID != "it_1" || len(hashes[0]) != 64 {
				t.Errorf("record %q hash %q", recs[0].ID, hashes[0])
			}
		})
	}
}

// FuzzReadRecords: any input reads as records or one "NAME:LINE: what"
// error, never a panic, and the two readers agree on which ids there are.
func FuzzReadRecords(f *testing.F) {
	f.Add(`{"id":"it_1","expected_calls":[{"tool":"t","args":{"a":1}}],"rationale":"r"}`)
	f.Add("{\"id\":\"a\"}\n{\"id\":\"a\"}\n")
	f.Add(`{"id":"x","input":{"messages":[{"role":"user"}]},"acceptable":[[{"tool":""}]]}`)
	f.Fuzz(func(t *testing.T, in string) {
		recs, hashes, err := ReadRecords(context.Background(), strings.NewReader(in), "g", true, nil)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "g:") {
				t.Fatalf("error without its place: %v", err)
			}
			return
		}
		if len(hashes) != len(recs) {
			t.Fatalf("%d records, %d hashes", len(recs), len(hashes))
		}
		ctxs, err := ReadRecordContexts(context.Background(), strings.NewReader(in), "g", nil)
		if err != nil {
			t.Fatalf("records read, contexts not: %v", err)
		}
		for _, r := range recs {
			if _, ok := ctxs[r.ID]; !ok {
				t.Fatalf("no context for %s", r.ID)
			}
		}
	})
}
