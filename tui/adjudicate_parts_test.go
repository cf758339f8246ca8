package tui

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

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

// Side by side at 80 columns a value too long for its column breaks where
// its tokens meet (after @ . / _ -), never inside a short token, and reads
// back whole.
func TestAdjudicationWrapsValuesAtTokenBoundaries(t *testing.T) {
	s := StylesFor(true)
	args := json.RawMessage(`{"email":"aisha.sharma@icloud.com","url":"https://example.com/orders/ORD-10000/returns","id":"it_3f2a9c0d1e2b4a5f9e8d7c6b"}`)
	labels := []review.Label{
		{Reviewer: "alice", Decision: review.DecisionCall, Calls: []review.LabelCall{{Tool: "update_user", Args: args}}, Rationale: "r"},
		{Reviewer: "bob", Decision: review.DecisionCall, Calls: []review.LabelCall{{Tool: "update_user", Args: json.RawMessage(`{"email":"aisha@icloud.com"}`)}}, Rationale: "r"},
	}
	v, _ := renderLabels(&s, labels, 80)
	plain := ansi.Strip(v)
	for _, cut := range []string{"icloud.c\n", "icloud.\n", "exam\n", "ORD-1\n"} {
		if strings.Contains(plain, cut) {
			t.Errorf("a token is cut (%q):\n%s", cut, plain)
		}
	}
	var left strings.Builder
	for _, l := range strings.Split(plain, "\n") {
		if i := strings.Index(l, "│"); i >= 0 {
			l = l[:i]
		}
		left.WriteString(strings.ReplaceAll(l, diffMarker, ""))
	}
	for _, whole := range []string{`"aisha.sharma@icloud.com"`, `"https://example.com/orders/ORD-10000/returns"`} {
		if !strings.Contains(squeeze(left.String()), whole) {
			t.Errorf("%s does not read back whole:\n%s", whole, plain)
		}
	}
}
