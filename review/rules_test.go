package review

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/gold"
)

func TestParseArgRuleSpec(t *testing.T) {
	tests := []struct {
		in   string
		want ArgRuleSpec
		err  string
	}{
		{in: "order_id=fuzzy", want: ArgRuleSpec{Arg: "order_id", Rule: gold.ArgRule{Match: "fuzzy"}}},
		{in: "note=any+optional", want: ArgRuleSpec{Arg: "note", Rule: gold.ArgRule{Match: "any", Optional: true}}},
		{in: "optional=optional", want: ArgRuleSpec{Arg: "optional", Rule: gold.ArgRule{Optional: true}}},
		{in: `get_weather:unit=any_of:["c","celsius"]`, want: ArgRuleSpec{Tool: "get_weather", Arg: "unit",
			Rule: gold.ArgRule{AnyOf: []json.RawMessage{json.RawMessage(`"c"`), json.RawMessage(`"celsius"`)}}}},
		{in: `n=optional+any_of:[1,2]`, want: ArgRuleSpec{Arg: "n", Rule: gold.ArgRule{Optional: true,
			AnyOf: []json.RawMessage{json.RawMessage(`1`), json.RawMessage(`2`)}}}},
		{in: `/flights/0/date=any_of:["2024-05-02"]`, want: ArgRuleSpec{Arg: "/flights/0/date",
			Rule: gold.ArgRule{AnyOf: []json.RawMessage{json.RawMessage(`"2024-05-02"`)}}}},
		{in: "set_ac:/body/a~1b=optional", want: ArgRuleSpec{Tool: "set_ac", Arg: "/body/a~1b", Rule: gold.ArgRule{Optional: true}}},
		{in: "/time/12:00=any", want: ArgRuleSpec{Arg: "/time/12:00", Rule: gold.ArgRule{Match: "any"}}},
		{in: "/order_id=fuzzy", want: ArgRuleSpec{Arg: "order_id", Rule: gold.ArgRule{Match: "fuzzy"}}},
		{in: "/body/x~2=any", err: "~ must be followed by 0 or 1"},
		{in: "/=any", err: "empty argument name"},
		{in: "order_id", err: "want [TOOL:]ARG=RULE"},
		{in: "x=loose", err: `unknown "loose"`},
		{in: "x=fuzzy+exact", err: "more than one"},
		{in: "x=any_of:[]", err: "non-empty JSON array"},
		{in: "t:=any", err: "empty argument name"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseArgRuleSpec(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v %v, want %+v", got, err, tt.want)
			}
		})
	}
}

func TestApplyArgRules(t *testing.T) {
	g := Gold{
		Calls:      ExpectedCalls([]LabelCall{call("a", `{"x":1,"y":2}`), call("b", `{"x":3}`)}),
		Acceptable: [][]gold.ExpectedCall{ExpectedCalls([]LabelCall{call("a", `{"x":4}`)})},
	}
	if err := ApplyArgRules(&g, []ArgRuleSpec{{Arg: "x", Rule: gold.ArgRule{Match: "any"}}, {Tool: "a", Arg: "y", Rule: gold.ArgRule{Optional: true}}}); err != nil {
		t.Fatal(err)
	}
	if g.Calls[0].ArgRules["x"].Match != "any" || g.Calls[1].ArgRules["x"].Match != "any" || g.Acceptable[0][0].ArgRules["x"].Match != "any" {
		t.Errorf("x rule not everywhere: %+v", g)
	}
	if !g.Calls[0].ArgRules["y"].Optional || len(g.Calls[1].ArgRules) != 1 {
		t.Errorf("y rule: %+v", g.Calls)
	}
	if err := ApplyArgRules(&g, []ArgRuleSpec{{Tool: "b", Arg: "y"}}); err == nil {
		t.Error("rule for an argument no call has: no error")
	}
}

func TestApplyArgRulesPointer(t *testing.T) {
	g := Gold{
		Calls: ExpectedCalls([]LabelCall{call("book", `{"flights":[{"date":"2024-05-01"}],"user":"u"}`), call("other", `{"x":1}`)}),
	}
	spec, err := ParseArgRuleSpec(`/flights/0/date=any_of:["2024-05-02"]`)
	if err != nil {
		t.Fatal(err)
	}
	if err := ApplyArgRules(&g, []ArgRuleSpec{spec}); err != nil {
		t.Fatal(err)
	}
	if r, ok := g.Calls[0].ArgRules["/flights/0/date"]; !ok || len(r.AnyOf) != 1 || len(g.Calls[1].ArgRules) != 0 {
		t.Errorf("pointer rule on the wrong calls: %+v", g.Calls)
	}
	err = ApplyArgRules(&g, []ArgRuleSpec{{Tool: "book", Arg: "/flights/1/date", Rule: gold.ArgRule{Match: "any"}}})
	if err == nil || !strings.Contains(err.Error(), `"/flights/1/date"`) || !strings.Contains(err.Error(), "which the expected args do not have") {
		t.Errorf("pointer past the array: error %v", err)
	}
	if _, ok := g.Calls[0].ArgRules["/flights/1/date"]; ok {
		t.Error("a rejected rule was attached")
	}
}

func FuzzParseArgRuleSpec(f *testing.F) {
	for _, s := range []string{"order_id=fuzzy", "note=any+optional", `t:u=any_of:["c"]`, "x=", "=y", "a:b:c=exact", "x=any_of:[1,", "x=optional+any_of:[{}]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := ParseArgRuleSpec(s)
		if err != nil {
			return
		}
		if spec.Arg == "" {
			t.Fatalf("%q: parsed with an empty argument name", s)
		}
		switch spec.Rule.Match {
		case "", gold.MatchExact, gold.MatchFuzzy, gold.MatchAny:
		default:
			t.Fatalf("%q: match %q", s, spec.Rule.Match)
		}
		for _, v := range spec.Rule.AnyOf {
			if !json.Valid(v) {
				t.Fatalf("%q: any_of value %s is not JSON", s, v)
			}
		}
	})
}
