package score

import (
	"encoding/json"
	"testing"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// callsEqual reports whether two call lists pair one-to-one (in any order)
// with the same tools and equal argument values: what the scorer's Item
// says of an exact prediction.
func callsEqual(a, b []gold.ExpectedCall) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 {
		return true
	}
	exp := make([]gold.ExpectedCall, len(a))
	for i, c := range a {
		exp[i] = gold.ExpectedCall{Tool: c.Tool, Args: c.Args}
	}
	calls := make([]trace.Call, len(b))
	for i, c := range b {
		calls[i] = trace.Call{Name: c.Tool, Arguments: c.Args}
	}
	s := NewScorer(ProfileDefault)
	return s.Item(&Case{Expected: exp}, Prediction{Calls: calls}).Correct
}

func TestCallsEqual(t *testing.T) {
	a := []gold.ExpectedCall{ec("get_weather", `{"city":"Oslo","days":1}`), ec("refund", `{"order_id":"A1"}`)}
	tests := []struct {
		name string
		b    []gold.ExpectedCall
		want bool
	}{
		{"same", []gold.ExpectedCall{ec("get_weather", `{"city":"Oslo","days":1}`), ec("refund", `{"order_id":"A1"}`)}, true},
		{"other order, key order and number spelling", []gold.ExpectedCall{ec("refund", `{"order_id":"A1"}`), ec("get_weather", `{"days":1.0,"city":"Oslo"}`)}, true},
		{"one value differs", []gold.ExpectedCall{ec("get_weather", `{"city":"oslo","days":1}`), ec("refund", `{"order_id":"A1"}`)}, false},
		{"fewer calls", []gold.ExpectedCall{ec("refund", `{"order_id":"A1"}`)}, false},
		{"other tool", []gold.ExpectedCall{ec("get_weather", `{"city":"Oslo","days":1}`), ec("get_order_status", `{"order_id":"A1"}`)}, false},
		{"extra arg", []gold.ExpectedCall{ec("get_weather", `{"city":"Oslo","days":1,"units":"metric"}`), ec("refund", `{"order_id":"A1"}`)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := callsEqual(a, tt.b); got != tt.want {
				t.Errorf("callsEqual = %v, want %v", got, tt.want)
			}
			if got := callsEqual(tt.b, a); got != tt.want {
				t.Errorf("callsEqual reversed = %v, want %v", got, tt.want)
			}
		})
	}
	if !callsEqual(nil, []gold.ExpectedCall{}) {
		t.Error("two no-call labels differ")
	}
	dup := []gold.ExpectedCall{ec("refund", `{}`), ec("refund", `{}`)}
	if callsEqual(dup, []gold.ExpectedCall{ec("refund", `{}`), ec("get_weather", `{}`)}) {
		t.Error("a duplicate call matched a different one")
	}
}

// TestAgreementMatchesScoring: the agreement's value equality
// (gold.ArgsEqual) says what the scorer says of one call with those
// arguments, so a lead's status and a score never disagree.
func TestAgreementMatchesScoring(t *testing.T) {
	pairs := [][2]string{
		{`{"a":1,"b":{"x":[1,2]}}`, `{"b":{"x":[1.0,2]},"a":1e0}`},
		{`{"a":true}`, `{"a":1}`},
		{`{"a":1,"b":2}`, `{"b":3,"c":4}`},
		{`{"s":"Oslo"}`, `{"s":"oslo"}`},
		{`{"n":12345678901234567890}`, `{"n":12345678901234567891}`},
		{`{"a":null}`, `{}`},
		{`{"a":[1,2]}`, `{"a":[2,1]}`},
	}
	for _, p := range pairs {
		a, b := json.RawMessage(p[0]), json.RawMessage(p[1])
		if got, want := gold.ArgsEqual(a, b), callsEqual([]gold.ExpectedCall{{Tool: "t", Args: a}}, []gold.ExpectedCall{{Tool: "t", Args: b}}); got != want {
			t.Errorf("%s vs %s: gold.ArgsEqual = %v, the scorer says %v", p[0], p[1], got, want)
		}
	}
}
