package score

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/internal/jsonl"
	"github.com/goldtrace/goldtrace/trace"
)

func TestReadGold(t *testing.T) {
	data := `{"id":"it_a","input":{"messages":[{"role":"user","content":"hi \" } ]"}],"context":{"trace_id":"tr_1","turn":2,"metadata":{"cohort":"x"}}},"available_tools":[{"name":"get","parameters":{"type":"object"}}],"expected_tool":"get","expected_args":{"id":1},"expected_calls":[{"tool":"get","args":{"id":1,"x":[5]},"arg_rules":{"id":{"match":"fuzzy","optional":true,"any_of":[2,"3"]},"/x/0":{"optional":true}}}],"acceptable":[[{"tool":"other","args":{}}]],"rationale":"r","observed_calls":[{"tool":"get","args":"{bad","unparseable":true}],"provenance":{"status":"agreed"}}

{"id":"it_\u00e9","expected_tool":"legacy","expected_args":{"q":"x"},"observed_calls":null}
{"id":"it_c","expected_tool":null,"expected_args":null,"expected_calls":[],"acceptable":[],"available_tools":[{"name":"get"}],"input":{"context":{"trace_id":"tr_1","metadata":{"cohort":"x"}}}}
`
	g, err := ReadGold(context.Background(), strings.NewReader(data), "g.jsonl", GoldOptions{Observed: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Cases) != 3 || len(g.Observed) != 3 {
		t.Fatalf("%d cases %d observed", len(g.Cases), len(g.Observed))
	}
	a := g.Cases[0]
	want := gold.ExpectedCall{Tool: "get", Args: json.RawMessage(`{"id":1,"x":[5]}`), ArgRules: map[string]gold.ArgRule{
		"id":   {Match: "fuzzy", Optional: true, AnyOf: []json.RawMessage{json.RawMessage(`2`), json.RawMessage(`"3"`)}},
		"/x/0": {Optional: true}}}
	if a.ID != "it_a" || a.Trace != "tr_1" || a.Meta["cohort"] != "x" || len(a.Tools) != 1 || a.Tools[0].Name != "get" ||
		!reflect.DeepEqual(a.Expected, []gold.ExpectedCall{want}) || len(a.Acceptable) != 1 || a.Acceptable[0][0].Tool != "other" {
		t.Errorf("case a: %+v", a)
	}
	if obs := g.Observed[0].Calls; len(obs) != 1 || !obs[0].Unparseable || string(obs[0].Arguments) != `"{bad"` {
		t.Errorf("observed %+v", obs)
	}
	b := g.Cases[1]
	if b.ID != "it_é" || len(b.Expected) != 1 || b.Expected[0].Tool != "legacy" || string(b.Expected[0].Args) != `{"q":"x"}` {
		t.Errorf("legacy record: %+v", b)
	}
	if g.Observed[1].Calls == nil || len(g.Observed[1].Calls) != 0 {
		t.Errorf("null observed_calls: %+v", g.Observed[1])
	}
	c := g.Cases[2]
	if len(c.Expected) != 0 || &c.Tools[0] != &a.Tools[0] && c.Tools[0].Name != "get" {
		t.Errorf("no-call record: %+v", c)
	}

	bad := []struct{ in, want string }{
		{"{\"id\":\"a\",\"expected_tool\":null}\n{\"id\":\"a\",\"expected_calls\":[]}\n", "g.jsonl:2: duplicate id a (first on line 1)"},
		{"{\"id\":\"a\",\"expected_tool\":null}\n\n{\"id\":\"b\",\n", "g.jsonl:3: not a gold record"},
		// A file of ids alone is not gold that expects no call, and a
		// predictions file or a trace file is not gold at all.
		{`{"id":"it_1"}`, "g.jsonl:1: not a gold record: it has neither expected_calls nor expected_tool"},
		{`{"id":"it_1","tool_calls":[]}`, "g.jsonl:1: this is a prediction, not a gold record (it has tool_calls and no expected_calls or expected_tool)"},
		{`{"id":"tr_1","messages":[]}`, "g.jsonl:1: this is a trace, not a gold record (it has messages"},
		{`{"id":"a","expected_tool":null,"available_tools":[{"type":"function","function":{"description":"d"}}]}`, "g.jsonl:1: available_tools[0]: tool has no name"},
		{`{"id":"a","expected_tool":null,"available_tools":[{"name":"x"},{"type":"function","function":{"name":"x"}}]}`, "g.jsonl:1: available_tools[1]: tool x is defined twice"},
		{`{"expected_calls":[]}`, "g.jsonl:1: gold record without id"},
		{`{"id":5}`, "g.jsonl:1: id must be a string"},
		{`{"id":"a","expected_calls":[{"tool":"x","args":[1]}]}`, "g.jsonl:1: expected call x: args must be a JSON object"},
		{`{"id":"a","expected_calls":[{"args":{}}]}`, "g.jsonl:1: expected call without a tool name"},
		{`{"id":"a","expected_calls":[{"tool":"x","args":{"a":{}},"arg_rules":{"/a/b":{}}}]}`, `g.jsonl:1: expected call x: arg_rules "/a/b" points to a.b, which the expected args do not have`},
		{`{"id":"a"} x`, "g.jsonl:1: not a gold record: invalid JSON: trailing data"},
		{`{"id":"a","expected_tool":null,"available_tools":{"x":1}}`, "g.jsonl:1: available_tools must be a JSON array of tools"},
	}
	for _, tt := range bad {
		_, err := ReadGold(context.Background(), strings.NewReader(tt.in), "g.jsonl", GoldOptions{})
		var le *jsonl.LineError
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) || !errors.As(err, &le) {
			t.Errorf("%s: error %v, want %q", tt.in, err, tt.want)
		}
	}
}

// Lines longer than a block, and reads that return a byte at a time, come
// out whole and in order.
func TestReadGoldBlocks(t *testing.T) {
	var sb strings.Builder
	long := strings.Repeat("x", 3<<20) // three times a block of lines
	for i := range 3000 {
		fmt.Fprintf(&sb, `{"id":"it_%05d","rationale":"%s","expected_calls":[{"tool":"t%d","args":{}}]}`+"\n", i, map[bool]string{true: long}[i%1000 == 7], i)
	}
	for _, r := range []func(string) *strings.Reader{strings.NewReader} {
		g, err := ReadGold(context.Background(), r(sb.String()), "g", GoldOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range g.Cases {
			if c.ID != fmt.Sprintf("it_%05d", i) || c.Expected[0].Tool != fmt.Sprintf("t%d", i) {
				t.Fatalf("case %d: %+v", i, c)
			}
		}
	}
	small := sb.String()[:200000]
	small = small[:strings.LastIndexByte(small, '\n')+1]
	g, err := ReadGold(context.Background(), iotest.OneByteReader(strings.NewReader(small)), "g", GoldOptions{})
	if err != nil || len(g.Cases) != strings.Count(small, "\n") {
		t.Fatalf("one byte at a time: %d cases, %v", len(g.Cases), err)
	}
	_, err = ReadGold(context.Background(), strings.NewReader(small+"{\"id\":\"it_00000\",\"expected_tool\":null}\n"), "g", GoldOptions{})
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("g:%d: duplicate id it_00000", len(g.Cases)+1)) {
		t.Errorf("line number after many blocks: %v", err)
	}
}

func TestReadPredictions(t *testing.T) {
	cases := []Case{{ID: "a"}, {ID: "b"}, {ID: "c"}}
	in := `{"id":"a","tool_calls":[{"name":"x","arguments":{"k":1},"error":null},{"type":"function","function":{"name":"y","arguments":"{\"k\": 2}"},"error":"boom"},{"function":{"name":"z","arguments":"{k: 3"}},{"name":"w","arguments":null},{"name":"v","arguments":""}]}
{"id":"b","tool_calls":null}
`
	preds, unknown, err := ReadPredictions(context.Background(), strings.NewReader(in), "p", cases, PredictionOptions{})
	if err != nil || unknown != 0 {
		t.Fatal(err, unknown)
	}
	want := []trace.Call{
		{Name: "x", Arguments: json.RawMessage(`{"k":1}`)},
		{Name: "y", Arguments: json.RawMessage(`{"k": 2}`)},
		{Name: "z", Arguments: json.RawMessage(`"{k: 3"`), Unparseable: true},
		{Name: "w", Arguments: json.RawMessage(`{}`)},
		{Name: "v", Arguments: json.RawMessage(`{}`)},
	}
	if !reflect.DeepEqual(preds[0].Calls, want) || !reflect.DeepEqual(preds[0].Errors, []int8{CallOK, CallFailed}) {
		t.Errorf("a: %+v %v", preds[0].Calls, preds[0].Errors)
	}
	if preds[1].Missing || len(preds[1].Calls) != 0 || !preds[2].Missing {
		t.Errorf("b, c: %+v %+v", preds[1], preds[2])
	}
	bad := []struct{ in, want string }{
		{`{"id":"zz"}`, "p:1: prediction id zz is not in the gold"},
		{"{\"id\":\"a\"}\n\n{\"id\":\"a\"}", "p:3: duplicate prediction for a (first on line 1)"},
		{`{"tool_calls":[]}`, "p:1: prediction without id"},
		{`{"id":"a","tool_calls":[{"arguments":{}}]}`, "p:1: tool_calls[0] has no name"},
		{`{"id":"a","tool_calls":[{"name":"x","error":1}]}`, "p:1: tool_calls[0].error must be null or a string"},
		{`{"id":"a","tool_calls":{}}`, "p:1: tool_calls must be an array"},
		{`{"id":"a",}`, "p:1: not a prediction: invalid JSON"},
	}
	for _, tt := range bad {
		_, _, err := ReadPredictions(context.Background(), strings.NewReader(tt.in), "p", cases, PredictionOptions{})
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.in, err, tt.want)
		}
	}
	_, unknown, err = ReadPredictions(context.Background(), strings.NewReader(`{"id":"zz"}`), "p", cases, PredictionOptions{AllowUnknown: true})
	if err != nil || unknown != 1 {
		t.Errorf("allow unknown: %v %d", err, unknown)
	}
}

// ParsePrediction accepts what encoding/json accepts for the same shape
// and never yields a call without a name or with arguments that are not
// JSON.
func FuzzParsePrediction(f *testing.F) {
	f.Add([]byte(`{"id":"a","tool_calls":[{"name":"x","arguments":{"k":1}}]}`))
	f.Add([]byte(`{"id":"a","tool_calls":[{"function":{"name":"x","arguments":"{\"k\":"}}]}`))
	f.Add([]byte(`{"id":"a"}`))
	f.Add([]byte(`{"id":"\ud800","tool_calls":[{"name":"\u00e9","arguments":"[1,2]","error":null}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ip, err := ParsePrediction(data)
		if err != nil {
			return
		}
		if ip.ID == "" {
			t.Fatal("accepted a line without id")
		}
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		for _, c := range ip.Calls {
			if c.Name == "" || !json.Valid(c.Arguments) {
				t.Fatalf("call %+v: empty name or invalid arguments", c)
			}
		}
	})
}

// The streamed JSON report is byte for byte what encoding/json writes.
func TestWriteJSONMatchesEncodingJSON(t *testing.T) {
	cases, preds := reportFixture()
	cases = append(cases, Case{ID: "odd \"<&>\"\n\t\x01 \u2028 é \xff", Expected: []gold.ExpectedCall{ec("get_weather", `{"city":"\u0000<b>"}`)}, Tools: truthTools})
	preds = append(preds, Prediction{Calls: []trace.Call{pc("get_weather", `{"city":"x\u2029y"}`)}})
	for _, p := range []Profile{ProfileDefault, ProfileBFCL, ProfilePipeline, ProfileTutorial, ProfileFutureAGI} {
		r := Score(cases, preds, Options{Profile: p, By: []string{"cohort"}})
		r.ApplyGates([]Gate{{Metric: "exact_call", Limit: 0.9}}, 1)
		score, reason := 0.25, "judged <ok>\n"
		r.Items[0].ItemJudge = &ItemJudge{JudgeScore: &score, JudgeReason: &reason}
		r.Items[1].ItemJudge = &ItemJudge{JudgeError: "timeout"}
		var got strings.Builder
		if err := r.Write(&got, "json", WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%s: streamed report differs from encoding/json's:\n%s\n---\n%s", p.Name, got.String(), want.String())
		}
	}
	for _, f := range []float64{0, 1, 0.1, 1.0 / 3, 1e-7, 2.5e-9, 1e21, 123456789} {
		want, _ := json.Marshal(f)
		if got := appendJSONFloat(nil, f); string(got) != string(want) {
			t.Errorf("float %v: %s, want %s", f, got, want)
		}
	}
}

// available_tools in OpenAI's {"type":"function","function":{…}} shape, as
// users paste them, read with their names, descriptions and schemas.
func TestReadGoldOpenAITools(t *testing.T) {
	line := `{"id":"a","expected_tool":"get","expected_args":{},"available_tools":[{"type":"function","function":{"name":"get","description":"Get it.","parameters":{"type":"object","properties":{"q":{"type":"string"}}}}},{"name":"put","parameters":"{\"type\":\"object\"}"}]}`
	g, err := ReadGold(context.Background(), strings.NewReader(line), "g.jsonl", GoldOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tools := g.Cases[0].Tools
	if len(tools) != 2 || tools[0].Name != "get" || tools[0].Description != "Get it." ||
		!strings.Contains(string(tools[0].Parameters), `"q"`) || tools[1].Name != "put" || string(tools[1].Parameters) != `{"type":"object"}` {
		t.Fatalf("tools %+v", tools)
	}
}

// A gold record (or a trace) in the predictions file is refused: --gold and
// --pred swapped must not score.
func TestReadPredictionsRefusesGold(t *testing.T) {
	cases := []Case{{ID: "a"}}
	for _, tt := range []struct{ in, want string }{
		{`{"id":"a","expected_tool":null,"expected_calls":[]}`, "p:1: this is a gold record, not a prediction (it has expected_tool)"},
		{`{"id":"a","input":{},"available_tools":[]}`, "p:1: this is a gold record, not a prediction (it has available_tools)"},
		{`{"id":"a","messages":[{"role":"user","content":"x"}]}`, "p:1: this is a trace, not a prediction (it has messages and no tool_calls"},
	} {
		_, _, err := ReadPredictions(context.Background(), strings.NewReader(tt.in), "p", cases, PredictionOptions{})
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) || !errors.Is(err, gold.ErrWrongFile) {
			t.Errorf("%s: %v, want %q", tt.in, err, tt.want)
		}
	}
	// Extra keys a harness writes beside tool_calls are not a problem.
	if _, _, err := ReadPredictions(context.Background(), strings.NewReader(`{"id":"a","tool_calls":[],"latency_ms":5,"messages":[]}`), "p", cases, PredictionOptions{}); err != nil {
		t.Error(err)
	}
}
