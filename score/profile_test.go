package score

import (
	"testing"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// The schema-default rule ("an argument passed with its schema default is
// the same call as omitting it") is goldtrace's; BFCL reports
// unexpected_param / value_error there, and so does the bfcl profile.
func TestSchemaDefaultRuleByProfile(t *testing.T) {
	tests := []struct {
		name        string
		expected    gold.ExpectedCall
		pred        trace.Call
		defaultKind ErrorKind // "" = correct
		bfclKind    ErrorKind
	}{
		{"unnamed argument passed with its default",
			ec("get_weather", `{"city":"Oslo"}`), pc("get_weather", `{"city":"Oslo","units":"metric"}`),
			"", KindUnexpectedArg},
		{"unnamed argument passed with another value",
			ec("get_weather", `{"city":"Oslo"}`), pc("get_weather", `{"city":"Oslo","units":"imperial"}`),
			KindUnexpectedArg, KindUnexpectedArg},
		{"optional argument without a gold value passed with its default",
			ecr("get_weather", `{"city":"Oslo"}`, map[string]gold.ArgRule{"days": {Optional: true}}), pc("get_weather", `{"city":"Oslo","days":1}`),
			"", KindWrongValue},
		{"optional argument with a gold value passed with its default",
			ecr("get_weather", `{"city":"Oslo","days":3}`, map[string]gold.ArgRule{"days": {Optional: true}}), pc("get_weather", `{"city":"Oslo","days":1}`),
			"", KindWrongValue},
		{"optional argument omitted",
			ecr("get_weather", `{"city":"Oslo","days":3}`, map[string]gold.ArgRule{"days": {Optional: true}}), pc("get_weather", `{"city":"Oslo"}`),
			"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Case{ID: "x", Expected: []gold.ExpectedCall{tt.expected}, Tools: truthTools}
			p := Prediction{Calls: []trace.Call{tt.pred}}
			for _, run := range []struct {
				profile Profile
				want    ErrorKind
			}{{ProfileDefault, tt.defaultKind}, {ProfileBFCL, tt.bfclKind}} {
				r := Match(c, p, run.profile)
				if r.Kind != run.want || r.Correct != (run.want == "") {
					t.Errorf("profile %s: correct %v kind %q (%s), want kind %q", run.profile.Name, r.Correct, r.Kind, r.Message, run.want)
				}
			}
		})
	}
}
