package dataset

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/gold"
)

// TestBFCLCallEscapedNames pins the JSON Pointer tokens of argument names
// holding "/" and "~": a rule reaches the value it names through the
// escaped pointer (~1, ~0), and a rule on a member the gold omits still
// adds that member.
func TestBFCLCallEscapedNames(t *testing.T) {
	c := gold.ExpectedCall{Tool: "route", Args: json.RawMessage(`{"a/b":{"x~y":"v"},"c":"d"}`),
		ArgRules: map[string]gold.ArgRule{
			"/a~1b/x~0y": {AnyOf: []json.RawMessage{json.RawMessage(`"w"`)}},
			"/a~1b/z~1q": {Optional: true},
			"c~d":        {Optional: true}, // a plain key: the argument c~d, which the gold omits
		}}
	schema := map[string]any{"properties": map[string]any{"a/b": map[string]any{"type": "object"}}}
	got, unexpressed, err := bfclCall(c, schema)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	if want := `{"a/b":[{"x~y":["v","w"],"z/q":[""]}],"c":["d"],"c~d":[""]}`; string(b) != want {
		t.Errorf("possible answer %s, want %s", b, want)
	}
	if len(unexpressed) != 0 {
		t.Errorf("unexpressed %q, want none", unexpressed)
	}
}

// An optional rule on an argument the tool's schema requires cannot be
// expressed: BFCL fails a call without a required parameter before it
// reads the possible answer's "". The report names it; an optional rule on
// an argument the schema does not require is expressed exactly.
func TestBFCLCallOptionalRequired(t *testing.T) {
	c := gold.ExpectedCall{Tool: "book", Args: json.RawMessage(`{"city":"Oslo","day":"mon","note":"x"}`),
		ArgRules: map[string]gold.ArgRule{"day": {Optional: true}, "note": {Optional: true}}}
	schema := map[string]any{"properties": map[string]any{"city": map[string]any{"type": "string"}},
		"required": []any{"city", "day"}}
	got, unexpressed, err := bfclCall(c, schema)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	if want := `{"city":["Oslo"],"day":["mon",""],"note":["x",""]}`; string(b) != want {
		t.Errorf("possible answer %s, want %s", b, want)
	}
	if len(unexpressed) != 1 || !strings.HasPrefix(unexpressed[0], "book /day: optional, but the tool's schema requires it") {
		t.Errorf("unexpressed %q", unexpressed)
	}
}
