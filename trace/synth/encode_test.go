package synth

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/trace"
)

func TestCatalogSchemasAreValid(t *testing.T) {
	if len(toolSpecs) < 8 || len(toolSpecs) > 10 {
		t.Errorf("%d tools in the catalogue, want 8–10", len(toolSpecs))
	}
	for _, s := range toolSpecs {
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(shopTools().tools[s.name].Parameters, &schema); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if schema.Type != "object" || len(schema.Required) == 0 {
			t.Errorf("%s: type %q, required %v", s.name, schema.Type, schema.Required)
		}
		for _, r := range schema.Required {
			if _, ok := schema.Properties[r]; !ok {
				t.Errorf("%s: required %q is not a property", s.name, r)
			}
		}
		if got, want := requiredArgs[s.name], schema.Required; !slices.Equal(got, want) {
			t.Errorf("%s: requiredArgs %v, schema requires %v", s.name, got, want)
		}
	}
}

// TestAppendTraceMatchesMarshal: the fast writer gives json.Marshal's bytes,
// for generated traces and for hand-made ones with every awkward character.
func TestAppendTraceMatchesMarshal(t *testing.T) {
	traces := Generate(Options{Seed: 99, N: 300})
	traces = append(traces,
		trace.Trace{ID: "odd<&>", Tools: []trace.Tool{}, Messages: []trace.Message{}},
		trace.Trace{ID: "nil-slices"},
		trace.Trace{
			ID:        "escapes",
			Timestamp: time.Date(2026, 1, 2, 3, 4, 5, 600, time.FixedZone("x", 3600)),
			Metadata:  map[string]string{"z": "1", "a": "<b>", "m": "\u2028"},
			Tools:     []trace.Tool{{Name: "t", Parameters: json.RawMessage(`{"d":"a<b&c>\u2029 é"}`)}, {Name: "bare"}},
			Messages: []trace.Message{
				{Role: "user", Content: "quote \" backslash \\ tab \t nl \n cr \r bell \a bs \b ff \f nul \x00 bad \xff ok é 😀 \u2028\u2029"},
				{Role: "assistant", ToolCalls: []trace.Call{
					trace.NewCall("c1", "t", `{"x": "<tag> & </tag>", "y": [1, 2.50, true]}`),
					trace.NewCall("", "t", `{'broken': <yes>`),
				}},
				{Role: "tool", Name: "t", ToolCallID: "c1", Content: "{}"},
			},
		})
	for _, tr := range traces {
		want, err := json.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, '\n')
		got := appendTrace(nil, tr, shopTools().encoded)
		if !bytes.Equal(got, want) {
			t.Fatalf("%s:\n got %s\nwant %s", tr.ID, got, want)
		}
	}
}

func TestObjJSONIsCanonical(t *testing.T) {
	o := obj{{"z", 1}, {"a", "x<y"}, {"m", obj{{"b", true}, {"a", 2.5}}}, {"l", []obj{{{"k", "v"}}}}, {"s", []string{"p"}}}
	got := o.json()
	canon, err := trace.Canonical(got)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, canon) {
		t.Errorf("obj.json() = %s, canonical %s", got, canon)
	}
}
