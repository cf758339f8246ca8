package score

import (
	"encoding/json"
	"testing"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// Truth tests: every rule and every error kind, including the false
// verdicts public scorers are known for.

var truthTools = []trace.Tool{
	{Name: "get_order_status", Parameters: json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string"},"verbose":{"type":"boolean","default":false}},"required":["order_id"]}`)},
	{Name: "get_weather", Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"units":{"type":"string","default":"metric"},"days":{"type":"integer","default":1}}}`)},
	{Name: "refund", Parameters: json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string"},"amount":{"type":"number"},"items":{"type":"array"},"address":{"type":"object"}}}`)},
}

func ec(tool, args string) gold.ExpectedCall {
	return gold.ExpectedCall{Tool: tool, Args: json.RawMessage(args)}
}

func ecr(tool, args string, rules map[string]gold.ArgRule) gold.ExpectedCall {
	return gold.ExpectedCall{Tool: tool, Args: json.RawMessage(args), ArgRules: rules}
}

func pc(name, args string) trace.Call {
	return trace.Call{Name: name, Arguments: json.RawMessage(args)}
}

func unparseable(name, text string) trace.Call {
	return trace.NewCall("", name, text)
}

func TestMatchTruth(t *testing.T) {
	tests := []struct {
		name       string
		expected   []gold.ExpectedCall
		acceptable [][]gold.ExpectedCall
		pred       []trace.Call
		correct    bool
		kind       ErrorKind
	}{
		// Decisions.
		{name: "no call expected, no call made", correct: true},
		{name: "no call expected, call made", pred: []trace.Call{pc("get_weather", `{"city":"Oslo"}`)}, kind: KindShouldNotCall},
		{name: "unparseable call is never a correct abstention", pred: []trace.Call{unparseable("get_weather", `{city: Oslo`)}, kind: KindShouldNotCall},
		{name: "call expected, none made", expected: []gold.ExpectedCall{ec("get_weather", `{"city":"Oslo"}`)}, kind: KindShouldCall},

		// Tools.
		{name: "exact call", expected: []gold.ExpectedCall{ec("get_order_status", `{"order_id":"A1"}`)}, pred: []trace.Call{pc("get_order_status", `{"order_id":"A1"}`)}, correct: true},
		{name: "wrong tool", expected: []gold.ExpectedCall{ec("get_order_status", `{"order_id":"A1"}`)}, pred: []trace.Call{pc("refund", `{"order_id":"A1"}`)}, kind: KindWrongTool},
		{name: "hallucinated tool", expected: []gold.ExpectedCall{ec("get_order_status", `{"order_id":"A1"}`)}, pred: []trace.Call{pc("lookup_order", `{"order_id":"A1"}`)}, kind: KindHallucinatedTool},
		{name: "dotted name is another tool by default", expected: []gold.ExpectedCall{ec("get_order_status", `{"order_id":"A1"}`)}, pred: []trace.Call{pc("get.order.status", `{"order_id":"A1"}`)}, kind: KindHallucinatedTool},
		{name: "unparseable args", expected: []gold.ExpectedCall{ec("get_order_status", `{"order_id":"A1"}`)}, pred: []trace.Call{unparseable("get_order_status", `{"order_id": A1}`)}, kind: KindUnparseableArgs},
		{name: "args that are JSON but not an object", expected: []gold.ExpectedCall{ec("get_order_status", `{"order_id":"A1"}`)}, pred: []trace.Call{pc("get_order_status", `["A1"]`)}, kind: KindUnparseableArgs},

		// Arguments.
		{name: "missing arg", expected: []gold.ExpectedCall{ec("get_weather", `{"city":"Oslo","days":3}`)}, pred: []trace.Call{pc("get_weather", `{"city":"Oslo"}`)}, kind: KindMissingArg},
		{name: "unexpected arg", expected: []gold.ExpectedCall{ec("get_weather", `{"city":"Oslo"}`)}, pred: []trace.Call{pc("get_weather", `{"city":"Oslo","units":"imperial"}`)}, kind: KindUnexpectedArg},
		{name: "unexpected arg with its schema default is the same call", expected: []gold.ExpectedCall{ec("get_weather", `{"city":"Oslo"}`)}, pred: []trace.Call{pc("get_weather", `{"city":"Oslo","units":"metric"}`)}, correct: true},
		{name: "wrong type string vs number", expected: []gold.ExpectedCall{ec("get_weather", `{"city":"Oslo","days":3}`)}, pred: []trace.Call{pc("get_weather", `{"city":"Oslo","days":"3"}`)}, kind: KindWrongType},
		{name: "true is not 1", expected: []gold.ExpectedCall{ec("get_order_status", `{"order_id":"A1","verbose":true}`)}, pred: []trace.Call{pc("get_order_status", `{"order_id":"A1","verbose":1}`)}, kind: KindWrongType},
		{name: "1 is not true", expected: []gold.ExpectedCall{ec("get_weather", `{"days":1}`)}, pred: []trace.Call{pc("get_weather", `{"days":true}`)}, kind: KindWrongType},
		{name: "wrong value", expected: []gold.ExpectedCall{ec("get_order_status", `{"order_id":"A1"}`)}, pred: []trace.Call{pc("get_order_status", `{"order_id":"A2"}`)}, kind: KindWrongValue},
		{name: "exact is case sensitive", expected: []gold.ExpectedCall{ec("get_weather", `{"city":"Oslo"}`)}, pred: []trace.Call{pc("get_weather", `{"city":"oslo"}`)}, kind: KindWrongValue},
		{name: "missing outranks wrong value", expected: []gold.ExpectedCall{ec("get_weather", `{"city":"Oslo","days":2}`)}, pred: []trace.Call{pc("get_weather", `{"city":"Bergen"}`)}, kind: KindMissingArg},

		// Numbers.
		{name: "1 equals 1.0", expected: []gold.ExpectedCall{ec("refund", `{"amount":1}`)}, pred: []trace.Call{pc("refund", `{"amount":1.0}`)}, correct: true},
		{name: "1.5 equals 15e-1", expected: []gold.ExpectedCall{ec("refund", `{"amount":1.5}`)}, pred: []trace.Call{pc("refund", `{"amount":15e-1}`)}, correct: true},
		{name: "big integers compare exactly", expected: []gold.ExpectedCall{ec("refund", `{"amount":9007199254740993}`)}, pred: []trace.Call{pc("refund", `{"amount":9007199254740992}`)}, kind: KindWrongValue},
		{name: "big integer equals its float spelling", expected: []gold.ExpectedCall{ec("refund", `{"amount":9007199254740993}`)}, pred: []trace.Call{pc("refund", `{"amount":9007199254740993.0}`)}, correct: true},
		{name: "0.1 is not 0.10000000000000001 exactly", expected: []gold.ExpectedCall{ec("refund", `{"amount":0.1}`)}, pred: []trace.Call{pc("refund", `{"amount":0.10000000000000001}`)}, kind: KindWrongValue},
		{name: "-0 equals 0", expected: []gold.ExpectedCall{ec("refund", `{"amount":0}`)}, pred: []trace.Call{pc("refund", `{"amount":-0}`)}, correct: true},

		// Nested values.
		{name: "object key order is irrelevant", expected: []gold.ExpectedCall{ec("refund", `{"address":{"city":"Oslo","zip":"0150","geo":{"lat":1,"lon":2}}}`)}, pred: []trace.Call{pc("refund", `{"address":{"geo":{"lon":2.0,"lat":1},"zip":"0150","city":"Oslo"}}`)}, correct: true},
		{name: "nested object with extra key differs", expected: []gold.ExpectedCall{ec("refund", `{"address":{"city":"Oslo"}}`)}, pred: []trace.Call{pc("refund", `{"address":{"city":"Oslo","zip":"1"}}`)}, kind: KindWrongValue},
		{name: "arrays compare in order", expected: []gold.ExpectedCall{ec("refund", `{"items":["a","b"]}`)}, pred: []trace.Call{pc("refund", `{"items":["b","a"]}`)}, kind: KindWrongValue},
		{name: "arrays of the same elements in order", expected: []gold.ExpectedCall{ec("refund", `{"items":["a",{"n":1}]}`)}, pred: []trace.Call{pc("refund", `{"items":["a",{"n":1.0}]}`)}, correct: true},
		{name: "escaped strings compare decoded", expected: []gold.ExpectedCall{ec("get_weather", `{"city":"Zürich"}`)}, pred: []trace.Call{pc("get_weather", `{"city":"Z\u00fcrich"}`)}, correct: true},

		// Rules.
		{name: "fuzzy ignores case and whitespace", expected: []gold.ExpectedCall{ecr("get_weather", `{"city":"New York"}`, map[string]gold.ArgRule{"city": {Match: gold.MatchFuzzy}})}, pred: []trace.Call{pc("get_weather", `{"city":" new  york "}`)}, correct: true},
		{name: "fuzzy still needs the letters", expected: []gold.ExpectedCall{ecr("get_weather", `{"city":"New York"}`, map[string]gold.ArgRule{"city": {Match: gold.MatchFuzzy}})}, pred: []trace.Call{pc("get_weather", `{"city":"Newark"}`)}, kind: KindWrongValue},
		{name: "any accepts any value", expected: []gold.ExpectedCall{ecr("get_weather", `{"city":"Oslo"}`, map[string]gold.ArgRule{"city": {Match: gold.MatchAny}})}, pred: []trace.Call{pc("get_weather", `{"city":42}`)}, correct: true},
		{name: "any still needs the argument", expected: []gold.ExpectedCall{ecr("get_weather", `{"city":"Oslo"}`, map[string]gold.ArgRule{"city": {Match: gold.MatchAny}})}, pred: []trace.Call{pc("get_weather", `{}`)}, kind: KindMissingArg},
		{name: "optional may be omitted", expected: []gold.ExpectedCall{ecr("get_weather", `{"city":"Oslo","units":"metric"}`, map[string]gold.ArgRule{"units": {Optional: true}})}, pred: []trace.Call{pc("get_weather", `{"city":"Oslo"}`)}, correct: true},
		{name: "optional passed explicitly with its schema default", expected: []gold.ExpectedCall{ecr("get_weather", `{"city":"Oslo","days":5}`, map[string]gold.ArgRule{"days": {Optional: true}})}, pred: []trace.Call{pc("get_weather", `{"city":"Oslo","days":1}`)}, correct: true},
		{name: "optional passed with another value", expected: []gold.ExpectedCall{ecr("get_weather", `{"city":"Oslo","days":5}`, map[string]gold.ArgRule{"days": {Optional: true}})}, pred: []trace.Call{pc("get_weather", `{"city":"Oslo","days":2}`)}, kind: KindWrongValue},
		{name: "optional rule without a gold value, passed with default", expected: []gold.ExpectedCall{ecr("get_weather", `{"city":"Oslo"}`, map[string]gold.ArgRule{"units": {Optional: true}})}, pred: []trace.Call{pc("get_weather", `{"city":"Oslo","units":"metric"}`)}, correct: true},
		{name: "optional rule without a gold value, other value", expected: []gold.ExpectedCall{ecr("get_weather", `{"city":"Oslo"}`, map[string]gold.ArgRule{"units": {Optional: true}})}, pred: []trace.Call{pc("get_weather", `{"city":"Oslo","units":"imperial"}`)}, kind: KindWrongValue},
		{name: "any_of accepts alternatives", expected: []gold.ExpectedCall{ecr("get_weather", `{"city":"NYC"}`, map[string]gold.ArgRule{"city": {AnyOf: []json.RawMessage{json.RawMessage(`"New York"`), json.RawMessage(`"New York City"`)}}})}, pred: []trace.Call{pc("get_weather", `{"city":"New York City"}`)}, correct: true},
		{name: "any_of rejects others", expected: []gold.ExpectedCall{ecr("get_weather", `{"city":"NYC"}`, map[string]gold.ArgRule{"city": {AnyOf: []json.RawMessage{json.RawMessage(`"New York"`)}}})}, pred: []trace.Call{pc("get_weather", `{"city":"Boston"}`)}, kind: KindWrongValue},
		{name: "any_of alternative of another type is not a type error", expected: []gold.ExpectedCall{ecr("get_weather", `{"days":3}`, map[string]gold.ArgRule{"days": {AnyOf: []json.RawMessage{json.RawMessage(`"three"`)}}})}, pred: []trace.Call{pc("get_weather", `{"days":"3"}`)}, kind: KindWrongValue},
		{name: "fuzzy any_of", expected: []gold.ExpectedCall{ecr("get_weather", `{"city":"NYC"}`, map[string]gold.ArgRule{"city": {Match: gold.MatchFuzzy, AnyOf: []json.RawMessage{json.RawMessage(`"New York"`)}}})}, pred: []trace.Call{pc("get_weather", `{"city":"newyork"}`)}, correct: true},

		// Several calls.
		{name: "parallel calls in any order", expected: []gold.ExpectedCall{ec("get_weather", `{"city":"Oslo"}`), ec("get_weather", `{"city":"Rome"}`)}, pred: []trace.Call{pc("get_weather", `{"city":"Rome"}`), pc("get_weather", `{"city":"Oslo"}`)}, correct: true},
		{name: "two identical expected calls need two predicted", expected: []gold.ExpectedCall{ec("get_weather", `{"city":"Oslo"}`), ec("get_weather", `{"city":"Oslo"}`)}, pred: []trace.Call{pc("get_weather", `{"city":"Oslo"}`)}, kind: KindMissedCall},
		{name: "duplicate predicted call is spurious", expected: []gold.ExpectedCall{ec("get_weather", `{"city":"Oslo"}`)}, pred: []trace.Call{pc("get_weather", `{"city":"Oslo"}`), pc("get_weather", `{"city":"Oslo"}`)}, kind: KindSpuriousCall},
		{name: "two identical calls made twice", expected: []gold.ExpectedCall{ec("get_weather", `{"city":"Oslo"}`), ec("get_weather", `{"city":"Oslo"}`)}, pred: []trace.Call{pc("get_weather", `{"city":"Oslo"}`), pc("get_weather", `{"city":"Oslo"}`)}, correct: true},
		{
			// Greedy pairing takes the first predicted call that passes for the
			// first expected call: P1 passes E1 (any rule) and E2 (exact), so
			// greedy gives P1 to E1 and then P2 fails E2. The optimal pairing
			// is E1–P2, E2–P1: both exact.
			name: "greedy pairing trap",
			expected: []gold.ExpectedCall{
				ecr("get_weather", `{"city":"Oslo"}`, map[string]gold.ArgRule{"city": {Match: gold.MatchAny}}),
				ec("get_weather", `{"city":"Rome"}`),
			},
			pred:    []trace.Call{pc("get_weather", `{"city":"Rome"}`), pc("get_weather", `{"city":"Paris"}`)},
			correct: true,
		},
		{name: "wrong value in one of two calls", expected: []gold.ExpectedCall{ec("get_weather", `{"city":"Oslo"}`), ec("get_order_status", `{"order_id":"A1"}`)}, pred: []trace.Call{pc("get_order_status", `{"order_id":"A9"}`), pc("get_weather", `{"city":"Oslo"}`)}, kind: KindWrongValue},
		{name: "hallucinated spurious call outranks spurious", expected: []gold.ExpectedCall{ec("get_weather", `{"city":"Oslo"}`)}, pred: []trace.Call{pc("get_weather", `{"city":"Oslo"}`), pc("send_email", `{}`)}, kind: KindHallucinatedTool},

		// Acceptable lists.
		{
			name:       "acceptable list fits",
			expected:   []gold.ExpectedCall{ec("get_order_status", `{"order_id":"A1"}`)},
			acceptable: [][]gold.ExpectedCall{{ec("refund", `{"order_id":"A1"}`)}},
			pred:       []trace.Call{pc("refund", `{"order_id":"A1"}`)},
			correct:    true,
		},
		{
			name:       "acceptable no-call list fits",
			expected:   []gold.ExpectedCall{ec("get_order_status", `{"order_id":"A1"}`)},
			acceptable: [][]gold.ExpectedCall{{}},
			correct:    true,
		},
		{
			name:       "best-fitting list explains the failure",
			expected:   []gold.ExpectedCall{ec("get_order_status", `{"order_id":"A1"}`)},
			acceptable: [][]gold.ExpectedCall{{ec("refund", `{"order_id":"A1","amount":5}`)}},
			pred:       []trace.Call{pc("refund", `{"order_id":"A1","amount":6}`)},
			kind:       KindWrongValue,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Case{ID: "it_1", Expected: tt.expected, Acceptable: tt.acceptable, Tools: truthTools}
			r := Match(c, Prediction{Calls: tt.pred}, ProfileDefault)
			if r.Correct != tt.correct || r.Kind != tt.kind {
				t.Fatalf("correct=%v kind=%q (%s); want correct=%v kind=%q", r.Correct, r.Kind, r.Message, tt.correct, tt.kind)
			}
			if !r.Correct && r.Message == "" {
				t.Fatal("a failing item needs a message")
			}
		})
	}
}

func TestMatchBFCLProfile(t *testing.T) {
	tools := []trace.Tool{{Name: "math.area", Parameters: json.RawMessage(`{"type":"dict","properties":{"base":{"type":"float"},"n":{"type":"integer"},"xs":{"type":"array","items":{"type":"float"}},"unit":{"type":"string"}}}`)},
		{Name: "book", Parameters: json.RawMessage(`{"type":"dict","properties":{"city":{"type":"string"},"day":{"type":"string"},"note":{"type":"string"}},"required":["city","day"]}`)}}
	ecRules := func(tool, args string, rules map[string]gold.ArgRule) gold.ExpectedCall {
		e := ec(tool, args)
		e.ArgRules = rules
		return e
	}
	tests := []struct {
		name     string
		expected []gold.ExpectedCall
		pred     []trace.Call
		bfcl     bool
		plain    bool
	}{
		{name: "dot and underscore name the same tool", expected: []gold.ExpectedCall{ec("math.area", `{"n":1}`)}, pred: []trace.Call{pc("math_area", `{"n":1}`)}, bfcl: true, plain: false},
		{name: "strings normalised", expected: []gold.ExpectedCall{ec("math.area", `{"unit":"Chicago, IL"}`)}, pred: []trace.Call{pc("math.area", `{"unit":"chicago il."}`)}, bfcl: true, plain: false},
		{name: "quote styles are the same", expected: []gold.ExpectedCall{ec("math.area", `{"unit":"'x'"}`)}, pred: []trace.Call{pc("math.area", `{"unit":"\"x\""}`)}, bfcl: true, plain: false},
		{name: "int where float expected", expected: []gold.ExpectedCall{ec("math.area", `{"base":10.0}`)}, pred: []trace.Call{pc("math.area", `{"base":10}`)}, bfcl: true, plain: true},
		{name: "float where int expected", expected: []gold.ExpectedCall{ec("math.area", `{"n":10}`)}, pred: []trace.Call{pc("math.area", `{"n":10.0}`)}, bfcl: false, plain: true},
		{name: "int inside a float array", expected: []gold.ExpectedCall{ec("math.area", `{"xs":[1.0,2.5]}`)}, pred: []trace.Call{pc("math.area", `{"xs":[1,2.5]}`)}, bfcl: false, plain: true},
		{name: "unparseable call on no-call item", pred: []trace.Call{unparseable("math.area", `area(1)`)}, bfcl: true, plain: false},
		{name: "unparseable call on call item", expected: []gold.ExpectedCall{ec("math.area", `{"n":1}`)}, pred: []trace.Call{unparseable("math.area", `area(1)`)}, bfcl: false, plain: false},
		// Python's str.lower(): a word-final Σ is ς, after BFCL has taken
		// out the spaces (so the first Σ of ΟΔΟΣ ΑΘΗΝΑΣ is not final).
		{name: "final sigma lower-cased as Python does", expected: []gold.ExpectedCall{ec("math.area", `{"unit":"Νικόλαος"}`)}, pred: []trace.Call{pc("math.area", `{"unit":"ΝΙΚΌΛΑΟΣ"}`)}, bfcl: true, plain: false},
		{name: "sigma made medial by removed spaces", expected: []gold.ExpectedCall{ec("math.area", `{"unit":"οδοσαθηνας"}`)}, pred: []trace.Call{pc("math.area", `{"unit":"ΟΔΟΣ ΑΘΗΝΑΣ"}`)}, bfcl: true, plain: false},
		{name: "final sigma is not medial sigma", expected: []gold.ExpectedCall{ec("math.area", `{"unit":"οδοςαθηνας"}`)}, pred: []trace.Call{pc("math.area", `{"unit":"ΟΔΟΣ ΑΘΗΝΑΣ"}`)}, bfcl: false, plain: false},
		{name: "dotted capital I", expected: []gold.ExpectedCall{ec("math.area", `{"unit":"i̇stanbul"}`)}, pred: []trace.Call{pc("math.area", `{"unit":"İstanbul"}`)}, bfcl: true, plain: false},
		// BFCL checks the schema's required parameters before the possible
		// answers: an optional rule cannot excuse leaving one out.
		{name: "optional rule on a schema-required argument", expected: []gold.ExpectedCall{ecRules("book", `{"city":"Oslo","day":"mon"}`, map[string]gold.ArgRule{"day": {Optional: true}})},
			pred: []trace.Call{pc("book", `{"city":"Oslo"}`)}, bfcl: false, plain: true},
		{name: "optional rule on an argument the schema does not require", expected: []gold.ExpectedCall{ecRules("book", `{"city":"Oslo","note":"x"}`, map[string]gold.ArgRule{"note": {Optional: true}})},
			pred: []trace.Call{pc("book", `{"city":"Oslo","day":"mon"}`)}, bfcl: false, plain: false},
		{name: "required argument the gold leaves to any value", expected: []gold.ExpectedCall{ecRules("book", `{"city":"Oslo"}`, map[string]gold.ArgRule{"day": {Match: gold.MatchAny, Optional: true}})},
			pred: []trace.Call{pc("book", `{"city":"Oslo","day":"tue"}`)}, bfcl: true, plain: true},
		// BFCL decodes the whole output first: one call it cannot decode
		// fails the item, however right the other is.
		{name: "exact call beside an unparseable one", expected: []gold.ExpectedCall{ec("math.area", `{"n":1}`)},
			pred: []trace.Call{pc("math.area", `{"n":1}`), unparseable("math.area", `{"n": 2, "xs": [1,`)}, bfcl: false, plain: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Case{ID: "x", Expected: tt.expected, Tools: tools}
			if r := Match(c, Prediction{Calls: tt.pred}, ProfileBFCL); r.Correct != tt.bfcl {
				t.Errorf("bfcl: correct=%v (%s %s); want %v", r.Correct, r.Kind, r.Message, tt.bfcl)
			}
			if r := Match(c, Prediction{Calls: tt.pred}, ProfileDefault); r.Correct != tt.plain {
				t.Errorf("default: correct=%v (%s %s); want %v", r.Correct, r.Kind, r.Message, tt.plain)
			}
		})
	}
}
