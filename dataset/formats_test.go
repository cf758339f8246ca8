package dataset

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/gold"
)

func TestWriteFormatShapes(t *testing.T) {
	c := versionOf(t, TraceGold{Trace: orderTrace("tr_1"), Answers: []Answer{callAnswer(2), noCallAnswer(4)}})
	tests := []struct {
		format string
		checks []string // fragments of the first (call) row
	}{
		{"openai-evals", []string{`"input":[{"role":"system"`, `"ideal":["[{\"name\":\"get_order_status\",\"arguments\":{\"order_id\":\"ORD-9182\"}}]"]`,
			`"tools":[{"type":"function","function":{"name":"get_order_status"`}},
		{"langsmith", []string{`"inputs":{"messages":[`, `"outputs":{"expected_tool":"get_order_status","expected_args":{"order_id":"ORD-9182"}`, `"metadata":{"id":"it_`}},
		{"promptfoo", []string{`"vars":{"id":"it_`, `"options":{"tools":[{"type":"function","function":{"name":"get_order_status"`,
			`"assert":[{"type":"javascript","value":"const calls`, `{"type":"tool-call-f1","value":["get_order_status"],"threshold":1,"metric":"tool_call_f1"}`}},
	}
	for _, tc := range tests {
		t.Run(tc.format, func(t *testing.T) {
			var a, b bytes.Buffer
			if err := WriteFormat(&a, tc.format, bytes.NewReader(c.Bytes())); err != nil {
				t.Fatal(err)
			}
			if err := WriteFormat(&b, tc.format, bytes.NewReader(c.Bytes())); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Error("not deterministic")
			}
			rows := strings.Split(strings.TrimSuffix(a.String(), "\n"), "\n")
			if len(rows) != 2 {
				t.Fatalf("got %d rows, want 2", len(rows))
			}
			callRow := rows[0]
			if !strings.Contains(callRow, "get_order_status\"") || strings.Contains(rows[0], `"expected_tool":null`) {
				callRow = rows[1]
			}
			for _, frag := range tc.checks {
				if !strings.Contains(callRow, frag) {
					t.Errorf("row lacks %s:\n%s", frag, callRow)
				}
			}
			for _, r := range rows {
				if !json.Valid([]byte(r)) {
					t.Errorf("invalid JSON row %s", r)
				}
			}
		})
	}
	if err := WriteFormat(&bytes.Buffer{}, "csv", bytes.NewReader(c.Bytes())); err == nil {
		t.Error("unknown format accepted")
	}
}

// TestPromptfooAssertionJudgesCalls runs the generated javascript assertion
// under node, the way promptfoo would, against predicted outputs.
func TestPromptfooAssertionJudgesCalls(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed: the promptfoo assertion is not executed")
	}
	vars := map[string]any{
		"expected_calls": []gold.ExpectedCall{{Tool: "get_order_status", Args: json.RawMessage(`{"order_id":"ORD-9182","note":"x"}`),
			ArgRules: map[string]gold.ArgRule{"order_id": {Match: gold.MatchFuzzy}, "note": {Match: gold.MatchAny, Optional: true},
				"limit": {Optional: true, AnyOf: []json.RawMessage{json.RawMessage(`1`), json.RawMessage(`2`)}}}}},
		"acceptable": [][]gold.ExpectedCall{{{Tool: "lookup", Args: json.RawMessage(`{}`)}, {Tool: "get_order_status", Args: json.RawMessage(`{"order_id":"A"}`)}}},
	}
	call := promptfooToolCall
	tests := []promptfooCase{
		{"exact", promptfooCallCheck, `[` + call("get_order_status", `{"order_id":"ORD-9182"}`) + `]`, true},
		{"fuzzy + optional any", promptfooCallCheck, `[` + call("get_order_status", `{"order_id":" ord-9182 ","note":"anything"}`) + `]`, true},
		{"any_of", promptfooCallCheck, `[` + call("get_order_status", `{"order_id":"ORD-9182","limit":2}`) + `]`, true},
		{"not in any_of", promptfooCallCheck, `[` + call("get_order_status", `{"order_id":"ORD-9182","limit":3}`) + `]`, false},
		{"wrong value", promptfooCallCheck, `[` + call("get_order_status", `{"order_id":"ORD-1"}`) + `]`, false},
		{"unexpected arg", promptfooCallCheck, `[` + call("get_order_status", `{"order_id":"ORD-9182","x":1}`) + `]`, false},
		{"wrong tool", promptfooCallCheck, `[` + call("cancel_order", `{"order_id":"ORD-9182"}`) + `]`, false},
		{"acceptable in other order", promptfooCallCheck, `JSON.stringify([` + call("get_order_status", `{"order_id":"A"}`) + `,` + call("lookup", `{}`) + `])`, true},
		{"text instead of call", promptfooCallCheck, `"It ships tomorrow."`, false},
		{"unparseable args", promptfooCallCheck, `[` + call("get_order_status", `{order_id:`) + `]`, false},
		{"no call wanted, none made", "", `"It ships tomorrow."`, true},
		{"no call wanted, one made", "", `[` + call("lookup", `{}`) + `]`, false},
		{"no call wanted, tool_calls object with none", "", `{"tool_calls":[]}`, true},
	}
	runPromptfoo(t, node, vars, tests)
}

type promptfooCase struct {
	name   string
	check  string // promptfooCallCheck with the vars' gold, "" with a no-call gold
	output string // a JS expression
	pass   bool
}

// runPromptfoo runs every case's assertion under one node process with
// vars as the test case's variables; each prints its verdict on a line.
func runPromptfoo(t *testing.T, node string, vars map[string]any, tests []promptfooCase) {
	t.Helper()
	varsJSON, _ := json.Marshal(vars)
	// One node process runs every case; each prints its verdict on a line.
	// The check is built as promptfoo builds a javascript assertion: a value
	// with a newline is a function body, a one-line value an expression.
	var script strings.Builder
	script.WriteString("const context = { vars: " + string(varsJSON) + " };\n")
	script.WriteString(`const noCall = { vars: {"expected_calls":[],"acceptable":[]} };` + "\n")
	script.WriteString("const body = (v) => v.trimEnd().includes('\\n') ? v.trimEnd() : 'return ' + v.trimEnd();\n")
	checkJSON, _ := json.Marshal(promptfooCallCheck)
	script.WriteString("const check = new Function('output', 'context', 'process', body(" + string(checkJSON) + "));\n")
	for _, tc := range tests {
		ctx := "context"
		if tc.check == "" {
			ctx = "noCall"
		}
		script.WriteString("console.log(String(check(" + tc.output + ", " + ctx + ", process).pass));\n")
	}
	out, err := exec.Command(node, "-e", script.String()).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	verdicts := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(verdicts) != len(tests) {
		t.Fatalf("node printed %q", out)
	}
	for i, tc := range tests {
		if got := verdicts[i] == "true"; got != tc.pass {
			t.Errorf("%s: pass = %s, want %v", tc.name, verdicts[i], tc.pass)
		}
	}
}

func promptfooToolCall(name, args string) string {
	b, _ := json.Marshal(args)
	return `{"type":"function","function":{"name":"` + name + `","arguments":` + string(b) + `}}`
}

// The promptfoo assertion honours JSON-Pointer rules as the scorer does.
func TestPromptfooAssertionNestedRules(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed: the promptfoo assertion is not executed")
	}
	vars := map[string]any{
		"expected_calls": []gold.ExpectedCall{{Tool: "book", Args: json.RawMessage(`{"user":"u1","flights":[{"no":"HAT1","date":"2024-05-01"}],"body":{"mode":"cool","wind":"MID","a/b":1}}`),
			ArgRules: map[string]gold.ArgRule{"/flights/0/date": {AnyOf: []json.RawMessage{json.RawMessage(`"2024-05-02"`)}},
				"/body/wind": {Optional: true}, "/body/mode": {Match: gold.MatchFuzzy}, "/body/a~1b": {Match: gold.MatchAny}}}},
	}
	call := func(args string) string { return `[` + promptfooToolCall("book", args) + `]` }
	tests := []promptfooCase{
		{"as given", promptfooCallCheck, call(`{"user":"u1","flights":[{"no":"HAT1","date":"2024-05-01"}],"body":{"mode":"cool","wind":"MID","a/b":1}}`), true},
		{"nested any_of, optional omitted, fuzzy, any", promptfooCallCheck, call(`{"user":"u1","flights":[{"no":"HAT1","date":"2024-05-02"}],"body":{"mode":" COOL","a/b":"x"}}`), true},
		{"nested value not accepted", promptfooCallCheck, call(`{"user":"u1","flights":[{"no":"HAT1","date":"2024-05-09"}],"body":{"mode":"cool","a/b":1}}`), false},
		{"nested sibling exact", promptfooCallCheck, call(`{"user":"u1","flights":[{"no":"HAT2","date":"2024-05-01"}],"body":{"mode":"cool","a/b":1}}`), false},
		{"nested required missing", promptfooCallCheck, call(`{"user":"u1","flights":[{"no":"HAT1","date":"2024-05-01"}],"body":{"wind":"MID","a/b":1}}`), false},
		{"nested unexpected member", promptfooCallCheck, call(`{"user":"u1","flights":[{"no":"HAT1","date":"2024-05-01"}],"body":{"mode":"cool","a/b":1,"fan":2}}`), false},
		{"array too long", promptfooCallCheck, call(`{"user":"u1","flights":[{"no":"HAT1","date":"2024-05-01"},{}],"body":{"mode":"cool","a/b":1}}`), false},
	}
	runPromptfoo(t, node, vars, tests)
}
