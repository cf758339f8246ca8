package gold

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/trace"
)

func sampleRecord() Record {
	tool, adj := "get_order_status", "carol"
	return Record{
		ID: "it_3f2a9c0d1e2b4a5f",
		Input: Input{
			Messages: []trace.Message{{Role: trace.RoleUser, Content: "where's <my> package & co?"}},
			Context:  InputContext{TraceID: "tr_0001", Turn: 2, Metadata: map[string]string{"cohort": "billing"}},
		},
		AvailableTools: []trace.Tool{{Name: tool, Description: "Shipping status.", Parameters: json.RawMessage(`{"type":"object"}`)}},
		ExpectedTool:   &tool,
		ExpectedArgs:   json.RawMessage(`{"order_id":"ORD-9182"}`),
		ExpectedCalls: []ExpectedCall{{Tool: tool, Args: json.RawMessage(`{"order_id":"ORD-9182"}`),
			ArgRules: map[string]ArgRule{"order_id": {Match: MatchFuzzy}, "/x": {Optional: true, AnyOf: []json.RawMessage{json.RawMessage(`1`)}}}}},
		Acceptable:    [][]ExpectedCall{{{Tool: "lookup", Args: json.RawMessage(`{}`)}}},
		Rationale:     "One open order.",
		ObservedCalls: []ObservedCall{{Tool: "get_order_history", Args: json.RawMessage(`{"user_id":"u_9"}`)}, {Tool: "x", Args: json.RawMessage(`"{bad"`), Unparseable: true}},
		Provenance:    Provenance{Status: StatusAdjudicated, Reviewers: []string{"alice", "bob"}, Adjudicator: &adj, GuideVersion: "g_1a2b3c4d5e6f"},
	}
}

// TestEncoderIsEncodingJSON: the encoder writes what encoding/json writes
// of the record's fields in their order (without HTML escaping).
func TestEncoderIsEncodingJSON(t *testing.T) {
	type plain Record // Record without its MarshalJSON
	for _, r := range []Record{sampleRecord(), {ID: "it_empty"}} {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(plain(r)); err != nil {
			t.Fatal(err)
		}
		got, err := NewEncoder().AppendRecord(nil, &r)
		if err != nil {
			t.Fatal(err)
		}
		if want := bytes.TrimSuffix(buf.Bytes(), []byte("\n")); !bytes.Equal(got, want) {
			t.Errorf("AppendRecord:\n%s\nencoding/json:\n%s", got, want)
		}
		viaMarshal, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		if json.Unmarshal(viaMarshal, &a) != nil || json.Unmarshal(got, &b) != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("json.Marshal of a Record differs from AppendRecord")
		}
	}
}

// TestReadWhatIsWritten: the reader gives back every field the encoder
// wrote, and only the parts asked for.
func TestReadWhatIsWritten(t *testing.T) {
	r := sampleRecord()
	line, err := NewEncoder().AppendRecord(nil, &r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseRecord(line, NewInterner(), AllFields)
	if err != nil {
		t.Fatal(err)
	}
	want := r
	want.ExpectedCalls = []ExpectedCall{{Tool: r.ExpectedCalls[0].Tool, Args: r.ExpectedCalls[0].Args, ArgRules: r.ExpectedCalls[0].ArgRules}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back:\n%+v\nwant\n%+v", got, want)
	}
	core, err := ParseRecord(line, NewInterner(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if core.Input.Messages != nil || core.ObservedCalls != nil || core.Rationale != "" || core.Provenance.Status != "" || core.ExpectedTool != nil || core.ExpectedArgs != nil {
		t.Errorf("core read decoded optional parts: %+v", core)
	}
	if core.ID != r.ID || core.Input.Context.Turn != 2 || len(core.ExpectedCalls) != 1 || len(core.Acceptable) != 1 {
		t.Errorf("core read lost core fields: %+v", core)
	}
}

func TestReadRejects(t *testing.T) {
	bad := map[string]string{
		"no id":          `{"expected_calls":[]}`,
		"not an object":  `[1]`,
		"args not obj":   `{"id":"a","expected_calls":[{"tool":"t","args":[1]}]}`,
		"no tool":        `{"id":"a","expected_calls":[{"args":{}}]}`,
		"turn not int":   `{"id":"a","expected_tool":null,"input":{"context":{"turn":1.5}}}`,
		"bad pointer":    `{"id":"a","expected_calls":[{"tool":"t","args":{"a":{}},"arg_rules":{"/a/b":{}}}]}`,
		"trailing":       `{"id":"a"} x`,
		"tools not list": `{"id":"a","expected_tool":null,"available_tools":{}}`,
		"no answer":      `{"id":"a","available_tools":[]}`,
		"a prediction":   `{"id":"a","tool_calls":[]}`,
		"nameless tool":  `{"id":"a","expected_tool":null,"available_tools":[{"type":"function","function":{"description":"d"}}]}`,
	}
	for name, line := range bad {
		if _, err := ParseRecord([]byte(line), NewInterner(), AllFields); err == nil {
			t.Errorf("%s: %s accepted", name, line)
		}
	}
	err := Read(context.Background(), strings.NewReader("{\"id\":\"a\",\"expected_tool\":null}\n\n{\"id\":\"a\",\"expected_calls\":[]}\n"), "g.jsonl", ReadOptions{}, func(int, *Record) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "g.jsonl:3: duplicate id a (first on line 1)") {
		t.Errorf("duplicate id: %v", err)
	}
}

func TestExpectedListReadsOlderFields(t *testing.T) {
	r, err := ParseRecord([]byte(`{"id":"a","expected_tool":"t","expected_args":{"x":1}}`), NewInterner(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if l := r.ExpectedList(); len(l) != 1 || l[0].Tool != "t" || string(l[0].Args) != `{"x":1}` {
		t.Errorf("ExpectedList = %+v", l)
	}
}
