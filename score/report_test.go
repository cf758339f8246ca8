package score

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// reportFixture is four items over two cohorts: one correct call, one wrong
// value, one correct abstention, one missing prediction.
func reportFixture() ([]Case, []Prediction) {
	cases := []Case{
		{ID: "a", Expected: []gold.ExpectedCall{ec("get_weather", `{"city":"Oslo"}`)}, Tools: truthTools, Meta: map[string]string{"cohort": "x"}},
		{ID: "b", Expected: []gold.ExpectedCall{ec("get_weather", `{"city":"Rome"}`)}, Tools: truthTools, Meta: map[string]string{"cohort": "y"}},
		{ID: "c", Tools: truthTools, Meta: map[string]string{"cohort": "x"}},
		{ID: "d", Expected: []gold.ExpectedCall{ec("refund", `{"order_id":"A1"}`)}, Tools: truthTools},
	}
	preds := []Prediction{
		{Calls: []trace.Call{pc("get_weather", `{"city":"Oslo"}`)}},
		{Calls: []trace.Call{pc("get_weather", `{"city":"Milan"}`)}},
		{},
		{Missing: true},
	}
	return cases, preds
}

func TestScoreAggregates(t *testing.T) {
	cases, preds := reportFixture()
	r := Score(cases, preds, Options{Profile: ProfileDefault, By: []string{"cohort"}})
	m := r.Overall
	check := func(name string, want float64) {
		t.Helper()
		got, ok := m.Value(name)
		if !ok || got < want-1e-9 || got > want+1e-9 {
			t.Errorf("%s = %v (ok=%v), want %v", name, got, ok, want)
		}
	}
	check("exact_call", 0.5)     // a, c
	check("tool_name", 0.75)     // a, b, c
	check("args_shape", 2.0/3)   // a, b (d has no call)
	check("args_value", 1.0/3)   // a
	check("sequence", 2.0/3)     // a, b
	check("precision", 0.5)      // 1 matched of 2 predicted
	check("recall", 1.0/3)       // 1 matched of 3 expected
	check("f1", 0.4)             // 2·0.5·(1/3)/(0.5+1/3)
	check("no_tool_accuracy", 1) // c
	check("hallucinated_tool_rate", 0)
	if m.MissedCalls != 1 || m.SpuriousCalls != 0 {
		t.Errorf("missed %d spurious %d, want 1 0", m.MissedCalls, m.SpuriousCalls)
	}
	if m.ErrorKinds[KindWrongValue] != 1 || m.ErrorKinds[KindShouldCall] != 1 {
		t.Errorf("error kinds %v", m.ErrorKinds)
	}
	if len(r.MissingPredictions) != 1 || r.MissingPredictions[0] != "d" {
		t.Errorf("missing predictions %v, want [d]", r.MissingPredictions)
	}
	if len(r.PerTool) != 3 || r.PerTool[0].Name != "get_weather" || r.PerTool[0].Items != 2 || r.PerTool[2].Name != ClassNone {
		t.Errorf("per tool %+v", r.PerTool)
	}
	if len(r.Cohorts) != 1 || r.Cohorts[0].Key != "meta.cohort" || len(r.Cohorts[0].Groups) != 3 || r.Cohorts[0].Groups[2].Name != CohortUnset {
		t.Errorf("cohorts %+v", r.Cohorts)
	}
	cells := map[[2]string]int{}
	for _, c := range r.Confusion.Cells {
		cells[[2]string{c.Expected, c.Predicted}] = c.Count
	}
	want := map[[2]string]int{{"get_weather", "get_weather"}: 2, {ClassNone, ClassNone}: 1, {"refund", ClassNone}: 1}
	if len(cells) != len(want) {
		t.Errorf("confusion %v, want %v", cells, want)
	}
	for k, v := range want {
		if cells[k] != v {
			t.Errorf("confusion[%v] = %d, want %d", k, cells[k], v)
		}
	}
}

func TestConfusionUnknownClass(t *testing.T) {
	c := Case{ID: "a", Expected: []gold.ExpectedCall{ec("get_weather", `{}`)}, Tools: truthTools}
	r := Score([]Case{c}, []Prediction{{Calls: []trace.Call{pc("made_up", `{}`)}}}, Options{})
	if len(r.Confusion.Cells) != 1 || r.Confusion.Cells[0].Predicted != ClassUnknown {
		t.Fatalf("cells %+v, want predicted %s", r.Confusion.Cells, ClassUnknown)
	}
	if v, _ := r.Overall.Value("hallucinated_tool_rate"); v != 1 {
		t.Errorf("hallucinated_tool_rate %v, want 1", v)
	}
}

func TestGatesAndBaseline(t *testing.T) {
	cases, preds := reportFixture()
	r := Score(cases, preds, Options{})
	g1, err := ParseGate("exact_call=0.5", false)
	if err != nil {
		t.Fatal(err)
	}
	g2, _ := ParseGate("per_tool.exact_call=0.6", false)
	r.ApplyGates([]Gate{g1}, 1)
	if !r.Passed {
		t.Fatalf("exact_call 0.5 >= 0.5 should pass: %+v", r.Gates)
	}
	r.ApplyGates([]Gate{g2}, 2) // only get_weather (2 items, 0.5) has support 2
	fails := r.FailedGates()
	if r.Passed || len(fails) != 1 || fails[0].Scope != "tool get_weather" {
		t.Fatalf("per-tool gate: passed=%v fails=%+v", r.Passed, fails)
	}
	for _, bad := range []string{"exact_call", "nope=0.1", "exact_call=2", "hallucinated_tool_rate=0.1"} {
		if _, err := ParseGate(bad, false); err == nil {
			t.Errorf("ParseGate(%q) accepted", bad)
		}
	}
	if _, err := ParseGate("hallucinated_tool_rate=0.1", true); err != nil {
		t.Errorf("--max hallucinated_tool_rate: %v", err)
	}

	base := Score(cases, preds, Options{By: []string{"cohort"}})
	better := append([]Prediction(nil), preds...)
	better[1] = Prediction{Calls: []trace.Call{pc("get_weather", `{"city":"Rome"}`)}}
	cur := Score(cases, better, Options{By: []string{"cohort"}})
	cur.CompareBaseline(base, 0.02, 1)
	if !cur.Passed {
		t.Fatalf("an improvement failed the baseline: %+v", cur.FailedGates())
	}
	base2 := Score(cases, better, Options{By: []string{"cohort"}})
	worse := Score(cases, preds, Options{By: []string{"cohort"}})
	worse.CompareBaseline(base2, 0.02, 1)
	scopes := map[string]bool{}
	for _, g := range worse.FailedGates() {
		scopes[g.Scope] = true
	}
	for _, s := range []string{"overall", "tool get_weather", "meta.cohort=y"} {
		if !scopes[s] {
			t.Errorf("regression in %s not reported; failed scopes %v", s, scopes)
		}
	}
	if scopes["meta.cohort=x"] {
		t.Errorf("cohort x did not change but failed")
	}
}

func TestReportWriters(t *testing.T) {
	cases, preds := reportFixture()
	cases[0].Expected[0].Tool = "get_weather"
	r := Score(cases, preds, Options{By: []string{"cohort"}})
	g, _ := ParseGate("exact_call=0.9", false)
	r.ApplyGates([]Gate{g}, 1)
	for _, format := range Formats {
		var buf bytes.Buffer
		if err := r.Write(&buf, format, WriteOptions{}); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		out := buf.String()
		switch format {
		case "text":
			for _, want := range []string{"FAIL", "wrong_value", "get_weather.city = \"Milan\"; want \"Rome\"", "CONFUSION", "BY meta.cohort", "FAIL exact_call >= 0.9 [overall]: 0.5000"} {
				if !strings.Contains(out, want) {
					t.Errorf("text report lacks %q:\n%s", want, out)
				}
			}
			for i, line := range strings.Split(out, "\n") {
				if n := len([]rune(line)); n > textWidth {
					t.Errorf("text line %d is %d columns: %q", i+1, n, line)
				}
			}
		case "json":
			var back Report
			if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
				t.Fatalf("json: %v", err)
			}
			if back.Overall.Items != 4 || back.Passed || len(back.Items) != 4 || back.Items[1].Kind != KindWrongValue {
				t.Errorf("json round trip: %+v", back.Overall)
			}
		case "junit":
			var s junitSuites
			if err := xml.Unmarshal(buf.Bytes(), &s); err != nil {
				t.Fatalf("junit: %v", err)
			}
			if s.Suites[0].Tests != 4 || s.Suites[0].Failures != 2 || s.Suites[0].Cases[1].Failure.Type != "wrong_value" {
				t.Errorf("junit suites %+v", s.Suites[0])
			}
		case "markdown":
			if !strings.Contains(out, "❌ failed") || !strings.Contains(out, "| exact_call | 0.5000 |") {
				t.Errorf("markdown:\n%s", out)
			}
		}
	}
	if err := r.Write(&bytes.Buffer{}, "yaml", WriteOptions{}); err == nil {
		t.Error("unknown format accepted")
	}
}

func TestAbbreviate(t *testing.T) {
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"get_customer_order_history", 16, "get_custom…story"},
	} {
		if got := abbreviate(tt.in, tt.n); got != tt.want || len([]rune(got)) > tt.n {
			t.Errorf("abbreviate(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

// The text report fits 80 columns however long the tool names and failure
// messages, with every profile: names are shortened in their column,
// messages wrap at spaces under themselves, and nothing is lost from a
// failure message.
func TestTextReportFits80Columns(t *testing.T) {
	long := "lookup_customer_by_email_address_and_phone_number"
	cases := []Case{
		{ID: "it_0000000000000001", Expected: []gold.ExpectedCall{{Tool: long, Args: json.RawMessage(`{"email":"someone.with.a.long.address@example.com"}`)}}},
		{ID: "it_0000000000000002", Expected: []gold.ExpectedCall{{Tool: "cancel_order", Args: json.RawMessage(`{"order_id":"ORD-65787"}`)}}},
	}
	preds := []Prediction{
		{Calls: []trace.Call{pc(long, `{"email":"someone.else.with.a.long.address@example.com"}`)}},
		{Calls: []trace.Call{pc("cancel_order", `{"order_id":65787}`)}},
	}
	for _, name := range ProfileNames {
		profile, _ := ProfileByName(name)
		r := Score(cases, preds, Options{Profile: profile})
		var buf bytes.Buffer
		if err := r.Write(&buf, "text", WriteOptions{Failures: 10}); err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(buf.String(), "\n") {
			if n := len([]rune(line)); n > 80 {
				t.Errorf("%s: line %d is %d columns: %q", name, i+1, n, line)
			}
		}
		flat := strings.Join(strings.Fields(buf.String()), " ")
		if !strings.Contains(flat, `cancel_order.order_id = 65787 (number); want "ORD-65787" (string)`) {
			t.Errorf("%s: a failure message was cut:\n%s", name, buf.String())
		}
	}
}
