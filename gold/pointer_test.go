package gold

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestParsePointer(t *testing.T) {
	tests := []struct {
		ptr  string
		want []string
		err  bool
	}{
		{"/body/windStrength", []string{"body", "windStrength"}, false},
		{"/data/0/name", []string{"data", "0", "name"}, false},
		{"/a~1b/m~0n", []string{"a/b", "m~n"}, false},
		{"/~01", []string{"~1"}, false}, // ~0 first: "~01" is "~1", not "/"
		{"/", []string{""}, false},
		{"/a~2", nil, true},
		{"/a~", nil, true},
		{"a/b", nil, true},
	}
	for _, tt := range tests {
		got, err := ParsePointer(tt.ptr)
		if (err != nil) != tt.err || (!tt.err && !reflect.DeepEqual(got, tt.want)) {
			t.Errorf("ParsePointer(%q) = %q, %v; want %q (error %v)", tt.ptr, got, err, tt.want, tt.err)
		}
		if !tt.err && Pointer(got...) != tt.ptr {
			t.Errorf("Pointer(%q) = %q, want %q", got, Pointer(got...), tt.ptr)
		}
	}
	if got := DisplayPath("/flights/0/date"); got != "flights[0].date" {
		t.Errorf("DisplayPath = %q", got)
	}
}

func TestCheckArgRules(t *testing.T) {
	tests := []struct {
		args  string
		rules map[string]ArgRule
		err   string // substring; "" = valid
	}{
		{`{"body":{"mode":"a"}}`, map[string]ArgRule{"/body/mode": {Optional: true}}, ""},
		{`{"body":{}}`, map[string]ArgRule{"/body/mode": {Optional: true}}, ""},
		{`{"body":{}}`, map[string]ArgRule{"/body/mode": {AnyOf: []json.RawMessage{json.RawMessage(`"a"`)}}}, ""},
		{`{"body":{}}`, map[string]ArgRule{"/body/mode": {Match: MatchFuzzy}}, `arg_rules "/body/mode" points to body.mode, which the expected args do not have`},
		{`{"data":[{"name":"x"}]}`, map[string]ArgRule{"/data/0/name": {Match: MatchFuzzy}}, ""},
		{`{"data":[{"name":"x"}]}`, map[string]ArgRule{"/data/1/name": {Match: MatchFuzzy}}, `points to data[1], which the expected args do not have (an array of 1)`},
		{`{"data":[{"name":"x"}]}`, map[string]ArgRule{"/data/01/name": {Optional: true}}, `points to data[01]`},
		{`{"data":"s"}`, map[string]ArgRule{"/data/x": {Optional: true}}, `points into data, which is not an object or array`},
		{`{"nope":1}`, map[string]ArgRule{"/body/mode": {Optional: true}}, `points to body, which the expected args do not have`},
		{`{"a":1}`, map[string]ArgRule{"/a~x": {}}, `~ must be followed by 0 or 1`},
		{`{"a":1}`, map[string]ArgRule{"a": {}, "/a": {Optional: true}}, `name the same value`},
		{`{"a":1}`, map[string]ArgRule{"/b": {Match: MatchExact}}, ""}, // top level: as the plain key "b"
	}
	for _, tt := range tests {
		e := ecr("t", tt.args, tt.rules)
		err := e.CheckArgRules()
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%s %v: %v", tt.args, tt.rules, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s %v: error %v, want %q", tt.args, tt.rules, err, tt.err)
		}
	}
}

func ecr(tool, args string, rules map[string]ArgRule) ExpectedCall {
	return ExpectedCall{Tool: tool, Args: json.RawMessage(args), ArgRules: rules}
}
