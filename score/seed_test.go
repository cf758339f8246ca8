package score

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// Seed-profile conformance: each vector's numbers were computed by hand
// from the seed code as published (the arithmetic is in the comments), so
// the tests need no Python.

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func seedOf(t *testing.T, p Profile, c Case, pred Prediction) map[string]float64 {
	t.Helper()
	r := Match(c, pred, p)
	out := map[string]float64{}
	lo, hi := seedRange(p.seed)
	for i := lo; i < hi; i++ {
		out[seedNames[i]] = r.Seed[i]
	}
	return out
}

func calls(cs ...trace.Call) Prediction { return Prediction{Calls: cs} }

func TestPipelineProfile(t *testing.T) {
	a := []gold.ExpectedCall{ec("a", `{"x":1}`)}
	tests := []struct {
		name         string
		expected     []gold.ExpectedCall
		pred         Prediction
		name1, shape float64
	}{
		{"same keys and types, other value", a, calls(pc("a", `{"x":2}`)), 1, 1},
		{"1 vs 1.0: int is not float", a, calls(pc("a", `{"x":1.0}`)), 1, 0},
		{"true vs 1: bool is not int", []gold.ExpectedCall{ec("a", `{"x":true}`)}, calls(pc("a", `{"x":1}`)), 1, 0},
		{"extra key", a, calls(pc("a", `{"x":1,"y":2}`)), 1, 0},
		{"no call: None name, {} args", a, Prediction{}, 0, 0},
		{"no call wanted, none made", nil, Prediction{}, 1, 1},
		{"no call wanted, argument-less call: keys still equal", nil, calls(pc("b", `{}`)), 0, 1},
		{"only the first call counts", a, calls(pc("b", `{"x":5}`), pc("a", `{"x":1}`)), 0, 1},
		{"null is NoneType", []gold.ExpectedCall{ec("a", `{"x":"s"}`)}, calls(pc("a", `{"x":null}`)), 1, 0},
		{"unparseable arguments are not a dict", a, calls(unparseable("a", `{"x":`)), 1, 0},
		{"OpenAI arguments string already parsed", a, calls(trace.NewCall("", "a", `{"x": 3}`)), 1, 1},
	}
	for _, tt := range tests {
		got := seedOf(t, ProfilePipeline, Case{ID: "x", Expected: tt.expected, Tools: truthTools}, tt.pred)
		if got[SeedToolNameMatch] != tt.name1 || got[SeedToolArgsShapeMatch] != tt.shape {
			t.Errorf("%s: tool_name_match %v tool_args_shape_match %v, want %v %v", tt.name, got[SeedToolNameMatch], got[SeedToolArgsShapeMatch], tt.name1, tt.shape)
		}
	}
	// Overall: the mean over all items.
	cases := []Case{{ID: "1", Expected: a}, {ID: "2", Expected: a}, {ID: "3"}, {ID: "4", Expected: a}}
	preds := []Prediction{calls(pc("a", `{"x":1}`)), calls(pc("a", `{"x":1.5}`)), {}, {Missing: true}}
	r := Score(cases, preds, Options{Profile: ProfilePipeline})
	if v, ok := r.Overall.Value(SeedToolNameMatch); !ok || v != 0.75 { // 1, 1, 1, 0
		t.Errorf("overall tool_name_match %v, want 0.75", v)
	}
	if v, ok := r.Overall.Value(SeedToolArgsShapeMatch); !ok || v != 0.5 { // 1, 0, 1, 0
		t.Errorf("overall tool_args_shape_match %v, want 0.5", v)
	}
}

func TestTutorialProfile(t *testing.T) {
	two := []gold.ExpectedCall{ec("a", `{"x":1,"y":"Foo"}`), ec("b", `{"z":[1,2]}`)}
	twoPred := calls(pc("a", `{"x":1.0,"y":"foo "}`), pc("c", `{"z":[1,2]}`))
	tests := []struct {
		name               string
		mode               string
		weights            [3]float64
		expected           []gold.ExpectedCall
		pred               Prediction
		sel, par, seq, cmp float64
	}{
		// selection 1/2 (a=a, c≠b); params: call 1 x 1==1.0, y "Foo"≠"foo "
		// → 1/2, call 2 pairs b's {z} with c's (positional, tool ignored) →
		// 1; mean 0.75; LCS [a,c]/[a,b] = 1/2; .4·.5+.4·.75+.2·.5 = 0.6
		{"positional pairing, exact", ParamExact, DefaultTutorialWeights, two, twoPred, 0.5, 0.75, 0.5, 0.6},
		// fuzzy: "foo " and "Foo" lower().strip() equal → params 1;
		// .2+.4+.1 = 0.7
		{"fuzzy strings", ParamFuzzy, DefaultTutorialWeights, two, twoPred, 0.5, 1, 0.5, 0.7},
		// nothing expected, nothing called: selection 1, no params → 0.0,
		// sequence 1; .4+0+.2 = 0.6
		{"correct abstention scores 0.6", ParamExact, DefaultTutorialWeights, nil, Prediction{}, 1, 0, 1, 0.6},
		{"spurious call", ParamExact, DefaultTutorialWeights, nil, calls(pc("a", `{}`)), 0, 0, 1, 0.2},
		// selection 1/3; params: n 1 == True, o None == missing (None), p
		// [1.0, true] vs missing → 2/3 → 0.667; LCS 1/3;
		// .4/3 + .4·(2/3) + .2/3 = 0.4667 → 0.467
		{"Python equality quirks, subset", ParamSubset, DefaultTutorialWeights,
			[]gold.ExpectedCall{ec("a", `{"n":1,"o":null,"p":[1.0,true]}`), ec("b", `{}`), ec("c", `{}`)},
			calls(pc("a", `{"n":true,"m":1}`)), 1.0 / 3, 0.667, 1.0 / 3, 0.467},
		// Python's lower(): İ → i̇, final Σ → ς; strip() drops the tab
		{"Unicode fuzzy", ParamFuzzy, DefaultTutorialWeights, []gold.ExpectedCall{ec("geo", `{"city":"İSTANBUL","word":"ΟΔΟΣ"}`)},
			calls(pc("geo", `{"city":" i̇stanbul","word":"οδος\t"}`)), 1, 1, 1, 1},
		// selection 0 (b≠a, a≠b); params: {x:1} vs a's {x,y,z} → 1/3, {x:2,
		// y:3} vs b's {x:1} → 0; mean 1/6 → 0.167; LCS 1/2;
		// .5·0 + .3·(1/6) + .2·.5 = 0.15
		{"weights", ParamExact, [3]float64{0.5, 0.3, 0.2}, []gold.ExpectedCall{ec("a", `{"x":1,"y":3,"z":4}`), ec("b", `{"x":1}`)},
			calls(pc("b", `{"x":1}`), pc("a", `{"x":2,"y":3}`)), 0, 0.167, 0.5, 0.15},
	}
	for _, tt := range tests {
		p, err := TutorialProfile(tt.mode, tt.weights)
		if err != nil {
			t.Fatal(err)
		}
		got := seedOf(t, p, Case{ID: "x", Expected: tt.expected, Tools: truthTools}, tt.pred)
		if !near(got[SeedSelectionAccuracy], tt.sel) || !near(got[SeedAvgParamAccuracy], tt.par) || !near(got[SeedSequenceAccuracy], tt.seq) || !near(got[SeedCompositeScore], tt.cmp) {
			t.Errorf("%s: got %v, want selection %v params %v sequence %v composite %v", tt.name, got, tt.sel, tt.par, tt.seq, tt.cmp)
		}
	}
	if _, err := TutorialProfile("loose", DefaultTutorialWeights); err == nil {
		t.Error("unknown param mode accepted")
	}
	for _, bad := range []string{"0.4,0.4", "a,b,c", "0.4,-1,0.2"} {
		if _, err := ParseWeights(bad); err == nil {
			t.Errorf("weights %q accepted", bad)
		}
	}
	if w, err := ParseWeights("0.5, 0.3,0.2"); err != nil || w != [3]float64{0.5, 0.3, 0.2} {
		t.Errorf("ParseWeights: %v %v", w, err)
	}
}

func TestPyRound3(t *testing.T) {
	// Python: round(0.0005, 3) == 0.001 (the double is above the tie),
	// round(0.0125, 3) == 0.013 (above), round(2.6745, 3) == 2.675
	// (above), round(0.125, 2)-style exact ties go to even: 0.0625 → 0.062.
	for in, want := range map[float64]float64{0.0005: 0.001, 0.0125: 0.013, 2.6745: 2.675, 0.0625: 0.062, 1.0 / 6: 0.167, 2.0 / 3: 0.667} {
		if got := pyRound3(in); got != want {
			t.Errorf("pyRound3(%v) = %v, want %v", in, got, want)
		}
	}
}

func TestFutureAGIProfile(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name                string
		c                   Case
		pred                Prediction
		cov, val, succ, acc float64
	}{
		// used {a,x} ∩ required {a,b} = 1 of 2; 1 of 2 calls available; 1
		// of 2 succeeded; (.4·.5+.3·.5+.3·.5)/1 = 0.5
		{"all three", Case{Expected: []gold.ExpectedCall{ec("a", `{}`), ec("b", `{}`)}, Tools: []trace.Tool{{Name: "a"}, {Name: "b"}, {Name: "c"}}},
			Prediction{Calls: []trace.Call{pc("a", `{}`), pc("x", `{}`)}, Errors: []int8{CallOK, CallFailed}}, 0.5, 0.5, 0.5, 0.5},
		// no required tools, no error keys: validity alone (no call → 1)
		{"validity only", Case{Tools: []trace.Tool{{Name: "a"}}}, Prediction{}, nan, 1, nan, 1},
		// empty catalogue: coverage (1) and call success (0 of 1):
		// (.4·1 + .3·0)/.7 = 4/7
		{"no catalogue", Case{Expected: []gold.ExpectedCall{ec("a", `{}`)}},
			Prediction{Calls: []trace.Call{pc("a", `{}`)}, Errors: []int8{CallFailed}}, 1, nan, 0, 0.4 / 0.7},
		{"nothing computable", Case{}, Prediction{}, nan, nan, nan, nan},
		// only the call with an error key counts for success
		{"mixed error keys", Case{Expected: []gold.ExpectedCall{ec("a", `{}`)}, Tools: []trace.Tool{{Name: "a"}}},
			Prediction{Calls: []trace.Call{pc("a", `{}`), pc("a", `{}`)}, Errors: []int8{CallOK, CallUnknown}}, 1, 1, 1, 1},
	}
	same := func(a, b float64) bool { return (a != a && b != b) || near(a, b) }
	for _, tt := range tests {
		got := seedOf(t, ProfileFutureAGI, tt.c, tt.pred)
		if !same(got[SeedCoverage], tt.cov) || !same(got[SeedValidity], tt.val) || !same(got[SeedCallSuccess], tt.succ) || !same(got[SeedToolSelectionAccuracy], tt.acc) {
			t.Errorf("%s: got %v, want %v %v %v %v", tt.name, got, tt.cov, tt.val, tt.succ, tt.acc)
		}
	}

	// Trajectories and the overall invalid_tool_rate.
	tools := []trace.Tool{{Name: "a"}, {Name: "b"}}
	cases := []Case{
		{ID: "1", Trace: "tr_1", Expected: []gold.ExpectedCall{ec("a", `{}`)}, Tools: tools},
		{ID: "2", Trace: "tr_1", Expected: []gold.ExpectedCall{ec("b", `{}`)}, Tools: tools},
		{ID: "3", Trace: "tr_2", Tools: tools},
	}
	preds := []Prediction{
		{Calls: []trace.Call{pc("a", `{}`)}, Errors: []int8{CallOK}},
		{Calls: []trace.Call{pc("zzz", `{}`)}, Errors: []int8{CallFailed}},
		{},
	}
	r := Score(cases, preds, Options{Profile: ProfileFutureAGI})
	if len(r.Trajectories) != 2 || r.Trajectories[0].Trace != "tr_1" || r.Trajectories[0].Items != 2 {
		t.Fatalf("trajectories %+v", r.Trajectories)
	}
	// tr_1: used {a,zzz} ∩ required {a,b} = 1/2; 1 of 2 calls valid; 1 of 2
	// succeeded → 0.5
	tr := r.Trajectories[0]
	if !near(*tr.Coverage, 0.5) || !near(*tr.Validity, 0.5) || !near(*tr.CallSuccess, 0.5) || !near(*tr.ToolSelectionAccuracy, 0.5) {
		t.Errorf("tr_1 %+v", tr)
	}
	if tr2 := r.Trajectories[1]; tr2.Coverage != nil || tr2.CallSuccess != nil || *tr2.ToolSelectionAccuracy != 1 {
		t.Errorf("tr_2 %+v", tr2)
	}
	if v, ok := r.Overall.Value(SeedInvalidToolRate); !ok || v != 0.5 { // zzz of 2 calls
		t.Errorf("invalid_tool_rate %v, want 0.5", v)
	}
	// Item 1: 1,1,1 → 1; item 2: 0, 0, 0 → 0; item 3: validity 1 → 1.
	if v, _ := r.Overall.Value(SeedToolSelectionAccuracy); !near(v, 2.0/3) {
		t.Errorf("overall tool_selection_accuracy %v, want 2/3", v)
	}
	if v, _ := r.Overall.Value(SeedCoverage); !near(v, 0.5) { // items 1 and 2 only
		t.Errorf("overall coverage %v, want 0.5", v)
	}
}

// Every writer shows the profile's numbers; JSON puts them at each item's
// top level under the seed's names (null when not computable) and reads
// them back as a baseline.
func TestSeedReports(t *testing.T) {
	cases := []Case{{ID: "1", Expected: []gold.ExpectedCall{ec("a", `{}`)}, Tools: []trace.Tool{{Name: "a"}}}, {ID: "2"}}
	preds := []Prediction{{Calls: []trace.Call{pc("a", `{}`)}}, {}}
	for _, p := range []Profile{ProfilePipeline, ProfileTutorial, ProfileFutureAGI} {
		r := Score(cases, preds, Options{Profile: p})
		var js bytes.Buffer
		if err := r.Write(&js, "json", WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		var raw struct {
			Overall map[string]any   `json:"overall"`
			Items   []map[string]any `json:"items"`
		}
		if err := json.Unmarshal(js.Bytes(), &raw); err != nil {
			t.Fatalf("%s: %v\n%s", p.Name, err, js.String())
		}
		for _, name := range seedMetrics(p) {
			for i, it := range raw.Items {
				if _, ok := it[name]; !ok {
					t.Errorf("%s: item %d lacks %s: %v", p.Name, i, name, it)
				}
			}
		}
		for _, name := range seedRates(p) {
			if _, ok := raw.Overall[name]; !ok {
				t.Errorf("%s: overall lacks %s", p.Name, name)
			}
		}
		var back Report
		if err := json.Unmarshal(js.Bytes(), &back); err != nil {
			t.Fatal(err)
		}
		for _, name := range seedRates(p) {
			a, okA := r.Overall.Value(name)
			b, okB := back.Overall.Value(name)
			if okA != okB || a != b {
				t.Errorf("%s: %s read back as %v (%v), want %v (%v)", p.Name, name, b, okB, a, okA)
			}
		}
		for _, format := range []string{"text", "markdown", "junit"} {
			var out bytes.Buffer
			if err := r.Write(&out, format, WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			for _, name := range seedRates(p) {
				if !strings.Contains(out.String(), name) {
					t.Errorf("%s %s report lacks %s:\n%s", p.Name, format, name, out.String())
				}
			}
		}
	}
	// The default profile writes no seed keys.
	var js bytes.Buffer
	if err := Score(cases, preds, Options{}).Write(&js, "json", WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(js.String(), "tool_name_match") || strings.Contains(js.String(), "composite_score") {
		t.Errorf("default profile writes seed keys")
	}
}

// seedMetrics names the per-item numbers of the profile (none for default
// and bfcl).
func seedMetrics(p Profile) []string {
	lo, hi := seedRange(p.seed)
	return seedNames[lo:hi]
}

// seedRates are the profile's overall rates beyond its per-item numbers.
func seedRates(p Profile) []string {
	names := seedMetrics(p)
	if p.seed == seedFutureAGI {
		names = append(names[:len(names):len(names)], SeedInvalidToolRate)
	}
	return names
}
