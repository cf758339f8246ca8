package gold

import (
	"encoding/json"
	"reflect"
	"testing"
)

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
