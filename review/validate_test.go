package review

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/trace"
)

var shipTool = trace.Tool{Name: "create_shipment", Description: "Create a shipment.",
	Parameters: json.RawMessage(`{"type":"object","properties":{
		"order_id":{"type":"string"},
		"carrier":{"type":"string","enum":["ups","fedex","dhl"]},
		"amount":{"type":"number"},
		"express":{"type":"boolean"},
		"items":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string"}},"required":["sku"]}}},
		"required":["order_id","carrier"]}`)}

var idTool = trace.Tool{Name: "get_order_status", Parameters: json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string","pattern":"^ORD-[0-9]{5}$"},"note":{"type":"string","minLength":3}},"required":["order_id"]}`)}

var boundsTool = trace.Tool{Name: "create_return_label", Parameters: json.RawMessage(`{"type":"object","properties":{
		"items":{"type":"array","minItems":1,"maxItems":2,"items":{"type":"string"}},
		"quantity":{"type":"integer","minimum":1,"maximum":10},
		"amount":{"type":"number","exclusiveMinimum":0}}}`)}

// strictShipTool forbids undeclared fields; shipTool allows them, as JSON
// Schema does when additionalProperties is absent.
var strictShipTool = trace.Tool{Name: "create_shipment", Parameters: json.RawMessage(`{"type":"object","additionalProperties":false,
		"properties":{"order_id":{"type":"string"},"carrier":{"type":"string"},"amount":{"type":"number"},"express":{"type":"boolean"},"items":{"type":"array"}},
		"required":["order_id","carrier"]}`)}

var openTool = trace.Tool{Name: "search", Parameters: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"additionalProperties":true}`)}

func messages(ps []Problem) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Message)
	}
	return strings.Join(out, " | ")
}

func TestValidateArgs(t *testing.T) {
	tests := []struct {
		name string
		tool trace.Tool
		args string
		want string // "" = valid; otherwise every message, joined by " | "
	}{
		{"valid", shipTool, `{"order_id":"ORD-1","carrier":"ups"}`, ""},
		{"missing required", shipTool, `{"carrier":"ups"}`, "order_id is required"},
		{"two missing", shipTool, `{}`, "carrier is required | order_id is required"},
		{"enum", shipTool, `{"order_id":"1","carrier":"usps"}`, "carrier must be one of ups, fedex, dhl"},
		{"number as text", shipTool, `{"order_id":"1","carrier":"ups","amount":"12"}`, "amount must be a number, not text"},
		{"boolean", shipTool, `{"order_id":"1","carrier":"ups","express":"yes"}`, "express must be true or false, not text"},
		{"unknown with suggestion", strictShipTool, `{"ordr_id":"1","order_id":"1","carrier":"ups"}`, "unknown field 'ordr_id' — did you mean order_id?"},
		{"unknown without suggestion", strictShipTool, `{"order_id":"1","carrier":"ups","zzzzzzzz":1}`,
			"unknown field 'zzzzzzzz' — this tool takes amount, carrier, express, items, order_id"},
		{"undeclared field where not forbidden", shipTool, `{"order_id":"1","carrier":"ups","zzzzzzzz":1}`, ""},
		{"undeclared nested field where not forbidden", shipTool, `{"order_id":"1","carrier":"ups","items":[{"sku":"a","destination":"JFK"}]}`, ""},
		{"misspelt required field is named", shipTool, `{"ordr_id":"1","carrier":"ups"}`, "order_id is required (found 'ordr_id': a misspelling?)"},
		{"nested required", shipTool, `{"order_id":"1","carrier":"ups","items":[{}]}`, "items[0].sku is required"},
		{"empty for a pattern", idTool, `{"order_id":""}`, "order_id is empty"},
		{"pattern", idTool, `{"order_id":"12"}`, `order_id "12" does not have the expected form (^ORD-[0-9]{5}$)`},
		{"too short", idTool, `{"order_id":"ORD-12345","note":"ab"}`, "note is too short (at least 3 characters)"},
		{"empty list", boundsTool, `{"items":[]}`, "items needs at least 1 entry"},
		{"too many", boundsTool, `{"items":["a","b","c"]}`, "items has 3, allows at most 2 entries"},
		{"below minimum", boundsTool, `{"quantity":0}`, "quantity must be at least 1"},
		{"above maximum", boundsTool, `{"quantity":11}`, "quantity must be at most 10"},
		{"not above exclusive minimum", boundsTool, `{"amount":0}`, "amount must be more than 0"},
		{"extra allowed", openTool, `{"q":"x","page":2}`, ""},
		{"not an object", shipTool, `["x"]`, `the arguments must be an object: { "name": value, … }`},
		{"empty", shipTool, ``, "the arguments are empty: write {} for a call without arguments"},
		{"no schema", trace.Tool{Name: "ping"}, `{"anything":1}`, ""},
		{"external refs are not followed", trace.Tool{Name: "x", Parameters: json.RawMessage(`{"$ref":"file:///etc/passwd"}`)}, `{"a":1}`, ""},
		{"broken schema is not enforced", trace.Tool{Name: "x", Parameters: json.RawMessage(`{"type":"nonsense"}`)}, `{"a":1}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := messages(ValidateArgs(tt.tool, json.RawMessage(tt.args))); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestArgsWarnings(t *testing.T) {
	tests := []struct {
		name string
		tool trace.Tool
		args string
		want string
	}{
		{"none", shipTool, `{"order_id":"1","carrier":"ups"}`, ""},
		{"empty required text", shipTool, `{"order_id":"","carrier":"ups"}`, "order_id is empty"},
		{"empty optional text is fine", openTool, `{"q":""}`, ""},
		{"nested empty required", shipTool, `{"order_id":"1","carrier":"ups","items":[{"sku":""}]}`, "items[0].sku is empty"},
		{"undeclared field", shipTool, `{"order_id":"1","carrier":"ups","ordr_id":"2"}`, "'ordr_id' is not in the tool's schema — did you mean order_id?"},
		{"forbidden field is an error, not a warning", strictShipTool, `{"order_id":"1","carrier":"ups","zz":1}`, ""},
		{"explicitly open", openTool, `{"q":"x","page":2}`, ""},
		{"not JSON", shipTool, `{`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := messages(NewArgsValidator(tt.tool).Warnings(json.RawMessage(tt.args))); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestValidateArgsSyntax(t *testing.T) {
	tests := []struct{ args, want string }{
		{"{\n  \"order_id\": \"1\",\n}", "not valid JSON at line 3, column 1"},
		{`{"order_id": "1"`, "it ends too early"},
		{`{"order_id": 1 "x"}`, "line 1, column 16"},
	}
	for _, tt := range tests {
		got := messages(ValidateArgs(shipTool, json.RawMessage(tt.args)))
		if !strings.Contains(got, tt.want) {
			t.Errorf("%q: got %q, want it to contain %q", tt.args, got, tt.want)
		}
	}
}

func TestValidateLabel(t *testing.T) {
	tools := []trace.Tool{shipTool, openTool}
	call := func(tool, args string) LabelCall { return LabelCall{Tool: tool, Args: json.RawMessage(args)} }
	tests := []struct {
		name  string
		label Label
		want  string
	}{
		{"valid call", Label{Decision: DecisionCall, Calls: []LabelCall{call("search", `{"q":"x"}`)}}, ""},
		{"valid no call", Label{Decision: DecisionNoCall}, ""},
		{"call without calls", Label{Decision: DecisionCall}, "the label says a tool should be called but lists no call"},
		{"no call with calls", Label{Decision: DecisionNoCall, Calls: []LabelCall{call("search", `{}`)}}, "the label says no tool should be called but lists calls"},
		{"bad decision", Label{Decision: "maybe"}, `decision must be "call" or "no_call", not "maybe"`},
		{"tool not offered", Label{Decision: DecisionCall, Calls: []LabelCall{call("refund", `{}`)}},
			`"refund" is not one of the tools offered here (create_shipment, search)`},
		{"sequence numbers calls", Label{Decision: DecisionCall, Calls: []LabelCall{call("search", `{}`), call("create_shipment", `{"order_id":"1"}`)}},
			"call 2: carrier is required"},
		{"no tool chosen", Label{Decision: DecisionCall, Calls: []LabelCall{call("", `{}`)}}, "no tool chosen"},
		{"NUL in the rationale", Label{Decision: DecisionNoCall, Rationale: "bad\x00text"}, `the rationale holds a NUL character (\u0000)`},
	}
	// A LabelValidator keeps the compiled schemas: every label, checked
	// twice in a row, gives what ValidateLabel gives; a tool of the same
	// name with another schema is another tool.
	var lv LabelValidator
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := messages(ValidateLabel(tt.label, tools)); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
			for range 2 {
				if got := messages(lv.ValidateLabel(tt.label, tools)); got != tt.want {
					t.Errorf("LabelValidator: got  %q\nwant %q", got, tt.want)
				}
			}
		})
	}
	strict := Label{Decision: DecisionCall, Calls: []LabelCall{call("create_shipment", `{"order_id":"1","carrier":"ups","zzzzzzzz":1}`)}}
	if got := messages(lv.ValidateLabel(strict, []trace.Tool{strictShipTool})); !strings.Contains(got, "unknown field 'zzzzzzzz'") {
		t.Errorf("the strict schema of a tool named as one checked before: %q", got)
	}
}

func BenchmarkValidateArgs(b *testing.B) {
	v := NewArgsValidator(shipTool)
	args := json.RawMessage(`{"order_id":"ORD-1","carrier":"usps","amount":"3"}`)
	for b.Loop() {
		v.Validate(args)
	}
}

// FuzzValidateArgs: any argument text against any schema gives problems or
// none, never a panic; text that is not a JSON object is always a problem.
func FuzzValidateArgs(f *testing.F) {
	f.Add(string(shipTool.Parameters), `{"order_id":"1","carrier":"ups"}`)
	f.Add(string(idTool.Parameters), `{"order_id":`)
	f.Add(`{"type":"object","properties":{"a":{"type":"array","items":{"type":"object","properties":{"b":{}}}}}}`, `{"a":[{"c":1}]}`)
	f.Add(`not json`, `[]`)
	f.Fuzz(func(t *testing.T, schema, args string) {
		ps := ValidateArgs(trace.Tool{Name: "t", Parameters: json.RawMessage(schema)}, json.RawMessage(args))
		var obj map[string]any
		if json.Unmarshal([]byte(args), &obj) != nil && len(ps) == 0 {
			t.Errorf("%q is not a JSON object but passed", args)
		}
		for _, p := range ps {
			if p.Message == "" {
				t.Error("a problem without words")
			}
		}
	})
}

// A hostile or absurd schema does not hang the label screen or flood it:
// a long enum is named in part, and a schema too costly to check leaves
// the arguments checked as without a schema.
func TestValidateArgsBounds(t *testing.T) {
	var enum []string
	for i := range 1000 {
		enum = append(enum, fmt.Sprintf(`"v%d"`, i))
	}
	long := trace.Tool{Name: "t", Parameters: json.RawMessage(`{"properties":{"c":{"enum":[` + strings.Join(enum, ",") + `]}}}`)}
	got := messages(ValidateArgs(long, json.RawMessage(`{"c":"x"}`)))
	if !strings.HasPrefix(got, "c must be one of v0, v1, ") || !strings.HasSuffix(got, ", v29, … (1000 values in all)") {
		t.Errorf("long enum: %q", got)
	}
	branching := trace.Tool{Name: "t", Parameters: json.RawMessage(`{"$defs":{"n":{"anyOf":[
		{"properties":{"a":{"$ref":"#/$defs/n"}},"required":["x"]},
		{"properties":{"a":{"$ref":"#/$defs/n"}},"required":["y"]}]}},"$ref":"#/$defs/n"}`)}
	args := strings.Repeat(`{"a":`, 40) + `{}` + strings.Repeat(`}`, 40)
	if got := messages(ValidateArgs(branching, json.RawMessage(args))); got != "" {
		t.Errorf("a schema too costly to check: %q", got)
	}
	if got := messages(ValidateArgs(trace.Tool{Name: "t", Parameters: json.RawMessage(`{"$ref":"#"}`)}, json.RawMessage(`{"a":1}`))); got != "" {
		t.Errorf("a $ref cycle: %q", got)
	}
}
