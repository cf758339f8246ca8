package score

import (
	"bytes"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// An item without available tools cannot say whether a tool was
// hallucinated: hallucinated_tool_rate leaves its calls out (null when no
// item lists tools, never 1), and the item is scored on everything else.
func TestEmptyCatalogue(t *testing.T) {
	for _, tools := range map[string][]trace.Tool{"absent": nil, "empty": {}} {
		cases := []Case{
			{ID: "a", Expected: []gold.ExpectedCall{ec("get_weather", `{"city":"Oslo"}`)}, Tools: tools},
			{ID: "b", Expected: []gold.ExpectedCall{ec("get_weather", `{"city":"Rome"}`)}, Tools: tools},
			{ID: "c", Tools: tools},
		}
		preds := []Prediction{
			{Calls: []trace.Call{pc("get_weather", `{"city":"Oslo"}`)}},
			{Calls: []trace.Call{pc("get_weather", `{"city":"Milan"}`)}},
			{Calls: []trace.Call{pc("lookup", `{}`)}},
		}
		r := Score(cases, preds, Options{})
		m := r.Overall
		if m.HallucinatedToolRate != nil {
			t.Errorf("hallucinated_tool_rate = %v, want null", *m.HallucinatedToolRate)
		}
		if got := FormatRate(m.HallucinatedToolRate); got != "n/a" {
			t.Errorf("text hallucinated_tool_rate = %s, want n/a", got)
		}
		if v, ok := m.Value("exact_call"); !ok || v != 1.0/3 {
			t.Errorf("exact_call = %v, want 1/3", v)
		}
		if v, ok := m.Value("args_shape"); !ok || v != 1 {
			t.Errorf("args_shape = %v, want 1", v)
		}
		kinds := map[string]ErrorKind{}
		for _, it := range r.Items {
			kinds[it.ID] = it.Kind
		}
		if kinds["a"] != "" || kinds["b"] != KindWrongValue || kinds["c"] != KindShouldNotCall {
			t.Errorf("kinds %v, want a ok, b wrong_value, c should_not_call", kinds)
		}
		if r.Items[2].PredictedTool != "lookup" {
			t.Errorf("predicted tool %q, want lookup (no (unknown) without a catalogue)", r.Items[2].PredictedTool)
		}
		for _, g := range r.PerTool {
			if g.HallucinatedToolRate != nil {
				t.Errorf("per tool %s: hallucinated_tool_rate = %v, want null", g.Name, *g.HallucinatedToolRate)
			}
		}
		var text bytes.Buffer
		if err := r.Write(&text, "text", WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text.String(), "hallucinated_tool_rate        n/a") {
			t.Errorf("text report does not show n/a:\n%s", text.String())
		}
	}

	// Mixed: the catalogued item's calls alone are the denominator.
	cases := []Case{
		{ID: "a", Expected: []gold.ExpectedCall{ec("get_weather", `{"city":"Oslo"}`)}, Tools: truthTools},
		{ID: "b", Expected: []gold.ExpectedCall{ec("get_weather", `{"city":"Oslo"}`)}},
	}
	preds := []Prediction{
		{Calls: []trace.Call{pc("get_wether", `{"city":"Oslo"}`)}},
		{Calls: []trace.Call{pc("get_wether", `{"city":"Oslo"}`), pc("x", `{}`)}},
	}
	r := Score(cases, preds, Options{})
	if v, ok := r.Overall.Value("hallucinated_tool_rate"); !ok || v != 1 {
		t.Errorf("hallucinated_tool_rate = %v (%v), want 1 of 1 catalogued call", v, ok)
	}
	if r.Overall.CatalogCalls != 1 || r.Overall.PredictedCalls != 3 {
		t.Errorf("catalog calls %d predicted %d, want 1 3", r.Overall.CatalogCalls, r.Overall.PredictedCalls)
	}
	if r.Items[0].Kind != KindHallucinatedTool || r.Items[1].Kind != KindWrongTool {
		t.Errorf("kinds %s %s, want hallucinated_tool wrong_tool", r.Items[0].Kind, r.Items[1].Kind)
	}
}
