package gold

import (
	"context"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/trace"
)

// readAll reads every record with fields, and the input hash of each when
// the messages are read.
func readAll(in, name string, fields Fields) ([]Record, []string, error) {
	var recs []Record
	var hashes []string
	err := Read(context.Background(), strings.NewReader(in), name, ReadOptions{Fields: fields}, func(_ int, r *Record) error {
		if fields&FieldMessages != 0 {
			hashes = append(hashes, trace.InputHash(r.Input.Messages, r.AvailableTools))
		}
		recs = append(recs, *r)
		return nil
	})
	return recs, hashes, err
}

func TestRead(t *testing.T) {
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
		{"catalogue not an object", `{"id":"it_5","catalogue":["t"],"expected_calls":[]}`, "gold.jsonl:1: catalogue: want an object of tool name → hash", 0},
		{"catalogue of numbers", `{"id":"it_6","catalogue":{"t":1},"expected_calls":[]}`, "gold.jsonl:1: catalogue: want an object of tool name → hash", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, hashes, err := readAll(tt.in, "gold.jsonl", AllFields)
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || len(recs) != tt.n || len(hashes) != tt.n {
				t.Fatalf("%d records, %d hashes, %v", len(recs), len(hashes), err)
			}
			if recs[0].ID != "it_1" || len(hashes[0]) != 64 || len(recs[0].Input.Messages) != 1 {
				t.Errorf("record %+v hash %q", recs[0], hashes[0])
			}
		})
	}
}

// FuzzRead: any input reads as records or one "NAME:LINE: what" error,
// never a panic, and reading every field or only the core agree on which
// ids there are.
func FuzzRead(f *testing.F) {
	f.Add(`{"id":"it_1","expected_calls":[{"tool":"t","args":{"a":1}}],"rationale":"r"}`)
	f.Add("{\"id\":\"a\"}\n{\"id\":\"a\"}\n")
	f.Add(`{"id":"x","input":{"messages":[{"role":"user"}]},"acceptable":[[{"tool":""}]]}`)
	f.Add(`{"id":"x","provenance":{"status":"agreed","reviewers":["a"],"adjudicator":null},"observed_calls":[{"tool":"t","args":"{"}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		recs, hashes, err := readAll(in, "g", AllFields)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "g:") {
				t.Fatalf("error without its place: %v", err)
			}
			return
		}
		if len(hashes) != len(recs) {
			t.Fatalf("%d records, %d hashes", len(recs), len(hashes))
		}
		core, _, err := readAll(in, "g", 0)
		if err != nil {
			t.Fatalf("every field read, the core not: %v", err)
		}
		if len(core) != len(recs) {
			t.Fatalf("%d records with every field, %d with the core", len(recs), len(core))
		}
		for i := range core {
			if core[i].ID != recs[i].ID {
				t.Fatalf("record %d: %s vs %s", i, core[i].ID, recs[i].ID)
			}
		}
	})
}

// A record whose tools or metadata repeat the last record's text reads the
// same values as one read from scratch; a text that only starts like the
// last one is read (or refused) on its own.
func TestReadRepeatedToolsAndMetadata(t *testing.T) {
	line := func(id, tools, meta string) string {
		return `{"id":"` + id + `","input":{"context":{"trace_id":"tr","metadata":` + meta + `}},"available_tools":` + tools + `,"expected_tool":null,"expected_calls":[]}` + "\n"
	}
	a, b := `[{"name":"a"}]`, `[{"name":"a"},{"name":"b"}]`
	in := line("1", a, `{"k":"x"}`) + line("2", a, `{"k":"x"}`) + line("3", b, `{"k":"y"}`) + line("4", a, `{"k":"x"}`)
	recs, _, err := readAll(in, "g", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		tools int
		meta  string
	}{{1, "x"}, {1, "x"}, {2, "y"}, {1, "x"}}
	for i, r := range recs {
		if len(r.AvailableTools) != want[i].tools || r.Input.Context.Metadata["k"] != want[i].meta {
			t.Errorf("record %s: %d tools, metadata %v; want %d, %s", r.ID, len(r.AvailableTools), r.Input.Context.Metadata, want[i].tools, want[i].meta)
		}
	}
	for _, bad := range []string{line("2", a+`x`, `{"k":"x"}`), line("2", a, `{"k":"x"}}`)} {
		if _, _, err := readAll(line("1", a, `{"k":"x"}`)+bad, "g", 0); err == nil || !strings.Contains(err.Error(), "g:2: not a gold record") {
			t.Errorf("%s: err %v, want a syntax error on line 2", bad, err)
		}
	}
}

func TestReadKeepsTheCatalogue(t *testing.T) {
	in := `{"id":"it_1","input":{"messages":[]},"available_tools":[{"name":"t"}],"catalogue":{"t":"0123456789abcdef"},"expected_tool":null,"expected_calls":[]}` + "\n" +
		`{"id":"it_2","available_tools":[{"name":"t"}],"expected_calls":[]}` + "\n"
	recs, _, err := readAll(in, "gold.jsonl", 0)
	if err != nil || len(recs) != 2 {
		t.Fatal(recs, err)
	}
	if recs[0].Catalogue["t"] != "0123456789abcdef" || recs[1].Catalogue != nil {
		t.Errorf("catalogues %v %v", recs[0].Catalogue, recs[1].Catalogue)
	}
	cat, err := CatalogueOf(recs[0].AvailableTools)
	h, _ := trace.ToolHash(trace.Tool{Name: "t"})
	if err != nil || cat["t"] != h[:16] {
		t.Errorf("CatalogueOf %v %v", cat, err)
	}
}
