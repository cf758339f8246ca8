package tui

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/goldtrace/goldtrace/review"
)

func adjLabel(who, calls string) review.Label {
	l := review.Label{Reviewer: who, Decision: review.DecisionNoCall}
	if calls != "" {
		l.Decision = review.DecisionCall
		if err := json.Unmarshal([]byte(calls), &l.Calls); err != nil {
			panic(err)
		}
	}
	return l
}

func TestMarkDifferences(t *testing.T) {
	tests := []struct {
		name string
		a, b string // calls JSON; "" = no call
		// what the first label gets marked with
		decision bool
		tools    []bool
		args     []map[string]bool
		missing  [][]string
	}{
		{"equal", `[{"tool":"t","args":{"x":1}}]`, `[{"tool":"t","args":{"x":1.0}}]`,
			false, []bool{false}, []map[string]bool{{}}, [][]string{nil}},
		{"decision", `[{"tool":"t","args":{"x":1}}]`, "",
			true, []bool{true}, []map[string]bool{{}}, [][]string{nil}},
		{"one value", `[{"tool":"t","args":{"x":1,"y":"a"}}]`, `[{"tool":"t","args":{"x":1,"y":"b"}}]`,
			false, []bool{false}, []map[string]bool{{"y": true}}, [][]string{nil}},
		{"key only in the other", `[{"tool":"t","args":{"x":1}}]`, `[{"tool":"t","args":{"x":1,"z":true}}]`,
			false, []bool{false}, []map[string]bool{{}}, [][]string{{"z"}}},
		{"other tool: args not compared", `[{"tool":"t","args":{"x":1}}]`, `[{"tool":"u","args":{"x":2}}]`,
			false, []bool{true}, []map[string]bool{{}}, [][]string{nil}},
		{"extra call", `[{"tool":"t","args":{}},{"tool":"u","args":{}}]`, `[{"tool":"t","args":{}}]`,
			false, []bool{false, true}, []map[string]bool{{}, {}}, [][]string{nil, nil}},
		{"order", `[{"tool":"t","args":{}},{"tool":"u","args":{}}]`, `[{"tool":"u","args":{}},{"tool":"t","args":{}}]`,
			false, []bool{true, true}, []map[string]bool{{}, {}}, [][]string{nil, nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := markDifferences([]review.Label{adjLabel("a", tt.a), adjLabel("b", tt.b)})[0]
			if m.decision != tt.decision || len(m.calls) != len(tt.tools) {
				t.Fatalf("marks %+v", m)
			}
			for i, c := range m.calls {
				if c.tool != tt.tools[i] || !reflect.DeepEqual(c.args, tt.args[i]) || !reflect.DeepEqual(c.missing, tt.missing[i]) {
					t.Errorf("call %d: %+v", i, c)
				}
			}
		})
	}
}

func TestMarkDifferencesRawArgs(t *testing.T) {
	a := review.Label{Reviewer: "a", Decision: review.DecisionCall, Calls: []review.LabelCall{{Tool: "t", Args: json.RawMessage(`"not json {"`)}}}
	b := review.Label{Reviewer: "b", Decision: review.DecisionCall, Calls: []review.LabelCall{{Tool: "t", Args: json.RawMessage(`{"x":1}`)}}}
	if m := markDifferences([]review.Label{a, b}); !m[0].calls[0].raw {
		t.Errorf("arguments that are not an object and differ are not marked: %+v", m[0])
	}
}

// FuzzParseMergedLabel: any text gives a label or problems, never a panic;
// a label accepted back from its own editor text is the same label.
func FuzzParseMergedLabel(f *testing.F) {
	for _, s := range []string{`[]`, `[{"tool":"get_order_status","args":{"order_id":"ORD-1"}}]`,
		`[{"tool":"search_faq"}]`, `{"tool":"x"}`, `[{"tool":1}]`, `[{"tool":"x","args":[]}]`, ``, `[`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		l, problems := parseMergedLabel(text, adjTools)
		if len(problems) > 0 {
			return
		}
		if (l.Decision == review.DecisionCall) != (len(l.Calls) > 0) {
			t.Fatalf("decision %s with %d calls", l.Decision, len(l.Calls))
		}
		again, problems := parseMergedLabel(editorText(l), adjTools)
		if len(problems) > 0 || again.Decision != l.Decision || len(again.Calls) != len(l.Calls) {
			t.Fatalf("round trip of %q: %+v %v", text, again, problems)
		}
		for i := range l.Calls {
			if again.Calls[i].Tool != l.Calls[i].Tool || !review.ArgsEqual(again.Calls[i].Args, l.Calls[i].Args) {
				t.Fatalf("round trip of %q changed call %d: %+v", text, i, again.Calls[i])
			}
		}
	})
}
