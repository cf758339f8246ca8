package score

import (
	"encoding/json"
	"testing"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

var nestedTools = []trace.Tool{
	{Name: "set_ac", Parameters: json.RawMessage(`{"type":"object","properties":{"body":{"type":"object"},"id":{"type":"string"}}}`)},
	{Name: "book_reservation", Parameters: json.RawMessage(`{"type":"object","properties":{"flights":{"type":"array"},"user_id":{"type":"string"}}}`)},
	{Name: "tag", Parameters: json.RawMessage(`{"type":"object","properties":{"labels":{"type":"object"}}}`)},
}

func TestNestedPointerRules(t *testing.T) {
	body := ecr("set_ac", `{"id":"d1","body":{"windStrength":"MID","monitoringEnabled":false,"mode":"cool"}}`, map[string]gold.ArgRule{
		"/body/windStrength":      {Optional: true, AnyOf: []json.RawMessage{json.RawMessage(`"HIGH"`)}},
		"/body/monitoringEnabled": {Optional: true},
		"/body/mode":              {Match: gold.MatchFuzzy},
	})
	flights := ecr("book_reservation", `{"user_id":"u1","flights":[{"flight":"HAT001","date":"2024-05-01"},{"flight":"HAT002","date":"2024-05-03"}]}`, map[string]gold.ArgRule{
		"/flights/0/date": {AnyOf: []json.RawMessage{json.RawMessage(`"2024-05-02"`)}},
		"/flights/1":      {Match: gold.MatchAny},
	})
	escaped := ecr("tag", `{"labels":{"a/b":"x","m~n":"y","keep":"z"}}`, map[string]gold.ArgRule{
		"/labels/a~1b": {Match: gold.MatchAny},
		"/labels/m~0n": {Optional: true},
	})
	tests := []struct {
		name    string
		exp     gold.ExpectedCall
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
				c := Case{ID: "x", Expected: []gold.ExpectedCall{tt.exp}, Tools: nestedTools}
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
	e := ecr("get_weather", `{"city":"Oslo"}`, map[string]gold.ArgRule{"/city": {Match: gold.MatchFuzzy}, "/units": {Optional: true}})
	c := Case{ID: "x", Expected: []gold.ExpectedCall{e}, Tools: truthTools}
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
