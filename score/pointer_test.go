package score

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/trace"
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

var nestedTools = []trace.Tool{
	{Name: "set_ac", Parameters: json.RawMessage(`{"type":"object","properties":{"body":{"type":"object"},"id":{"type":"string"}}}`)},
	{Name: "book_reservation", Parameters: json.RawMessage(`{"type":"object","properties":{"flights":{"type":"array"},"user_id":{"type":"string"}}}`)},
	{Name: "tag", Parameters: json.RawMessage(`{"type":"object","properties":{"labels":{"type":"object"}}}`)},
}

func TestNestedPointerRules(t *testing.T) {
	body := ecr("set_ac", `{"id":"d1","body":{"windStrength":"MID","monitoringEnabled":false,"mode":"cool"}}`, map[string]ArgRule{
		"/body/windStrength":      {Optional: true, AnyOf: []json.RawMessage{json.RawMessage(`"HIGH"`)}},
		"/body/monitoringEnabled": {Optional: true},
		"/body/mode":              {Match: MatchFuzzy},
	})
	flights := ecr("book_reservation", `{"user_id":"u1","flights":[{"flight":"HAT001","date":"2024-05-01"},{"flight":"HAT002","date":"2024-05-03"}]}`, map[string]ArgRule{
		"/flights/0/date": {AnyOf: []json.RawMessage{json.RawMessage(`"2024-05-02"`)}},
		"/flights/1":      {Match: MatchAny},
	})
	escaped := ecr("tag", `{"labels":{"a/b":"x","m~n":"y","keep":"z"}}`, map[string]ArgRule{
		"/labels/a~1b": {Match: MatchAny},
		"/labels/m~0n": {Optional: true},
	})
	tests := []struct {
		name    string
		exp     ExpectedCall
		args    string
		kind    ErrorKind
		message string
	}{
		{"all given", body, `{"id":"d1","body":{"windStrength":"MID","monitoringEnabled":false,"mode":"cool"}}`, "", ""},
		{"nested optionals omitted", body, `{"id":"d1","body":{"mode":"cool"}}`, "", ""},
		{"nested any_of", body, `{"id":"d1","body":{"windStrength":"HIGH","mode":"cool"}}`, "", ""},
		{"nested fuzzy", body, `{"id":"d1","body":{"mode":" COOL "}}`, "", ""},
		{"nested wrong value", body, `{"id":"d1","body":{"windStrength":"LOW","mode":"cool"}}`, KindWrongValue, `set_ac.body.windStrength = "LOW"; want "MID"`},
		{"nested required missing", body, `{"id":"d1","body":{"windStrength":"MID"}}`, KindWrongValue, `set_ac.body.mode = (omitted); want "cool"`},
		{"nested exact elsewhere", body, `{"id":"d2","body":{"mode":"cool"}}`, KindWrongValue, `set_ac.id = "d2"; want "d1"`},
		{"nested unexpected member", body, `{"id":"d1","body":{"mode":"cool","fan":1}}`, KindWrongValue, `set_ac.body.fan = 1; want (omitted)`},
		{"array element any_of", flights, `{"user_id":"u1","flights":[{"flight":"HAT001","date":"2024-05-02"},{"flight":"X","date":"Y"}]}`, "", ""},
		{"array element wrong", flights, `{"user_id":"u1","flights":[{"flight":"HAT001","date":"2024-05-09"},{"flight":"X"}]}`, KindWrongValue, `book_reservation.flights[0].date = "2024-05-09"; want "2024-05-01"`},
		{"array element sibling exact", flights, `{"user_id":"u1","flights":[{"flight":"HAT009","date":"2024-05-01"},{}]}`, KindWrongValue, `book_reservation.flights[0].flight = "HAT009"; want "HAT001"`},
		{"array too long", flights, `{"user_id":"u1","flights":[{"flight":"HAT001","date":"2024-05-01"},{},{}]}`, KindWrongValue, `book_reservation.flights[2] = {}; want (omitted)`},
		{"array too short", flights, `{"user_id":"u1","flights":[{"flight":"HAT001","date":"2024-05-01"}]}`, KindWrongValue, ""},
		{"escaped tokens", escaped, `{"labels":{"a/b":"anything","keep":"z"}}`, "", ""},
		{"escaped tokens keep exact", escaped, `{"labels":{"a/b":"anything","m~n":"y","keep":"w"}}`, KindWrongValue, `tag.labels.keep = "w"; want "z"`},
		{"top-level type still checked", body, `{"id":"d1","body":"cool"}`, KindWrongType, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.exp.CheckArgRules(); err != nil {
				t.Fatalf("rules rejected: %v", err)
			}
			for _, p := range []Profile{ProfileDefault, ProfileBFCL} {
				c := Case{ID: "x", Expected: []ExpectedCall{tt.exp}, Tools: nestedTools}
				r := Match(c, Prediction{Calls: []trace.Call{pc(tt.exp.Tool, tt.args)}}, p)
				if r.Kind != tt.kind || r.Correct != (tt.kind == "") {
					t.Errorf("profile %s: kind %q correct %v (%s), want %q", p.Name, r.Kind, r.Correct, r.Message, tt.kind)
				}
				if tt.message != "" && p.Name == "default" && r.Message != tt.message {
					t.Errorf("message %q, want %q", r.Message, tt.message)
				}
			}
		})
	}
}

// A one-token pointer is the top-level argument's rule.
func TestTopLevelPointerIsPlainKey(t *testing.T) {
	e := ecr("get_weather", `{"city":"Oslo"}`, map[string]ArgRule{"/city": {Match: MatchFuzzy}, "/units": {Optional: true}})
	c := Case{ID: "x", Expected: []ExpectedCall{e}, Tools: truthTools}
	for _, args := range []string{`{"city":"oslo"}`, `{"city":"OSLO","units":"metric"}`} {
		if r := Match(c, Prediction{Calls: []trace.Call{pc("get_weather", args)}}, ProfileDefault); !r.Correct {
			t.Errorf("%s: %s %s", args, r.Kind, r.Message)
		}
	}
	r := Match(c, Prediction{Calls: []trace.Call{pc("get_weather", `{"city":"oslo","units":"imperial"}`)}}, ProfileDefault)
	if r.Kind != KindWrongValue {
		t.Errorf("units imperial: %s %s, want wrong_value", r.Kind, r.Message)
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
