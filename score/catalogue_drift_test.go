package score

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/trace"
)

func TestCompareCatalogues(t *testing.T) {
	get := trace.Tool{Name: "get", Description: "Get one.", Parameters: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`)}
	h, err := shortToolHash(get)
	if err != nil {
		t.Fatal(err)
	}
	cases := []Case{{ID: "a", Tools: []trace.Tool{get}}, {ID: "b", Tools: []trace.Tool{get}}, {ID: "c", Tools: []trace.Tool{get}}, {ID: "d", Tools: []trace.Tool{get}}}
	lines := []string{
		// the same tool, OpenAI shape, keys in another order
		`{"id":"a","tool_calls":[],"tools":[{"type":"function","function":{"parameters":{"properties":{"id":{"type":"string"}},"type":"object"},"name":"get","description":"Get one."}}]}`,
		// MCP shape, description changed, and a tool the gold did not offer
		`{"id":"b","tool_calls":[],"tools":[{"name":"get","description":"Fetch one.","inputSchema":{"type":"object","properties":{"id":{"type":"string"}}}},{"name":"put"}]}`,
		// hashes as the manifest writes them
		`{"id":"c","tool_calls":[],"catalogue":{"get":"` + h + `"}}`,
		// says nothing: not checked
		`{"id":"d","tool_calls":[]}`,
	}
	preds := make([]Prediction, len(cases))
	for i, l := range lines {
		ip, err := ParsePrediction([]byte(l))
		if err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		preds[i] = ip.Prediction
	}
	d := CompareCatalogues(cases, preds)
	if d.Checked != 3 || d.Different != 1 || strings.Join(d.Tools, ",") != "get,put" {
		t.Errorf("drift %+v", d)
	}
	if w := d.Warning(); !strings.Contains(w, "1 of 3 predictions") || !strings.Contains(w, "get, put") {
		t.Errorf("warning %q", w)
	}
	if w := CompareCatalogues(cases[:1], preds[:1]).Warning(); w != "" {
		t.Errorf("same catalogue warns: %q", w)
	}
	for _, bad := range []string{`{"id":"x","tools":{"name":"get"}}`, `{"id":"x","catalogue":["get"]}`} {
		if _, err := ParsePrediction([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
