package score

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/goldtrace/goldtrace/trace"
)

// callsEqual reports whether two call lists pair one-to-one (in any order)
// with the same tools and equal argument values: what the scorer's Item
// says of an exact prediction.
func callsEqual(a, b []ExpectedCall) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 {
		return true
	}
	exp := make([]ExpectedCall, len(a))
	for i, c := range a {
		exp[i] = ExpectedCall{Tool: c.Tool, Args: c.Args}
	}
	calls := make([]trace.Call, len(b))
	for i, c := range b {
		calls[i] = trace.Call{Name: c.Tool, Arguments: c.Args}
	}
	s := NewScorer(ProfileDefault)
	return s.Item(&Case{Expected: exp}, Prediction{Calls: calls}).Correct
}

func TestCallsEqual(t *testing.T) {
	a := []ExpectedCall{ec("get_weather", `{"city":"Oslo","days":1}`), ec("refund", `{"order_id":"A1"}`)}
	tests := []struct {
		name string
		b    []ExpectedCall
		want bool
	}{
		{"same", []ExpectedCall{ec("get_weather", `{"city":"Oslo","days":1}`), ec("refund", `{"order_id":"A1"}`)}, true},
		{"other order, key order and number spelling", []ExpectedCall{ec("refund", `{"order_id":"A1"}`), ec("get_weather", `{"days":1.0,"city":"Oslo"}`)}, true},
		{"one value differs", []ExpectedCall{ec("get_weather", `{"city":"oslo","days":1}`), ec("refund", `{"order_id":"A1"}`)}, false},
		{"fewer calls", []ExpectedCall{ec("refund", `{"order_id":"A1"}`)}, false},
		{"other tool", []ExpectedCall{ec("get_weather", `{"city":"Oslo","days":1}`), ec("get_order_status", `{"order_id":"A1"}`)}, false},
		{"extra arg", []ExpectedCall{ec("get_weather", `{"city":"Oslo","days":1,"units":"metric"}`), ec("refund", `{"order_id":"A1"}`)}, false},
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
	if !callsEqual(nil, []ExpectedCall{}) {
		t.Error("two no-call labels differ")
	}
	dup := []ExpectedCall{ec("refund", `{}`), ec("refund", `{}`)}
	if callsEqual(dup, []ExpectedCall{ec("refund", `{}`), ec("get_weather", `{}`)}) {
		t.Error("a duplicate call matched a different one")
	}
}

func TestArgsEqualAndDiff(t *testing.T) {
	tests := []struct {
		a, b  string
		equal bool
		diff  []string
	}{
		{`{"a":1,"b":{"x":[1,2]}}`, `{"b":{"x":[1.0,2]},"a":1e0}`, true, nil},
		{`{"a":true}`, `{"a":1}`, false, []string{"a"}},
		{`{"a":1,"b":2}`, `{"b":3,"c":4}`, false, []string{"a", "b", "c"}},
		{`{}`, `null`, true, nil},
	}
	for _, tt := range tests {
		if got := ArgsEqual(json.RawMessage(tt.a), json.RawMessage(tt.b)); got != tt.equal {
			t.Errorf("ArgsEqual(%s, %s) = %v", tt.a, tt.b, got)
		}
		diff, ok := ArgsDiff(json.RawMessage(tt.a), json.RawMessage(tt.b))
		if !ok || !reflect.DeepEqual(diff, tt.diff) {
			t.Errorf("ArgsDiff(%s, %s) = %v %v, want %v", tt.a, tt.b, diff, ok, tt.diff)
		}
	}
	if _, ok := ArgsDiff(json.RawMessage(`[1]`), json.RawMessage(`{}`)); ok {
		t.Error("ArgsDiff accepted an array")
	}
	if ArgsEqual(json.RawMessage(`{bad`), json.RawMessage(`{}`)) {
		t.Error("invalid JSON equals {}")
	}
}
