package review

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func near(t *testing.T, what string, got *float64, want float64) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: got nil, want %.4f", what, want)
	}
	if math.Abs(*got-want) > 0.0005 {
		t.Errorf("%s: got %.4f, want %.4f", what, *got, want)
	}
}

// repeat returns n copies of class.
func repeat(class string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = class
	}
	return out
}

func TestCohenKappaWikipediaExample(t *testing.T) {
	// Wikipedia "Cohen's kappa", simple example: 50 proposals, A and B both
	// yes 20, A yes B no 5, A no B yes 10, both no 15. po = 0.7, pe = 0.5,
	// κ = 0.4.
	var a, b []string
	add := func(x, y string, n int) {
		a = append(a, repeat(x, n)...)
		b = append(b, repeat(y, n)...)
	}
	add("yes", "yes", 20)
	add("yes", "no", 5)
	add("no", "yes", 10)
	add("no", "no", 15)
	k := CohenKappa(a, b)
	if k.N != 50 || math.Abs(k.Observed-0.7) > 1e-12 || math.Abs(k.Expected-0.5) > 1e-12 {
		t.Errorf("po/pe: %+v", k)
	}
	near(t, "kappa", k.Kappa, 0.4)
}

func TestBinaryKappaMatchesCohen(t *testing.T) {
	// The Wikipedia example as a 2×2 table.
	k := BinaryKappa(20, 5, 10, 15)
	near(t, "kappa", k.Kappa, 0.4)
	if BinaryKappa(0, 0, 0, 0).Kappa != nil || BinaryKappa(3, 0, 0, 0).Kappa != nil {
		t.Error("undefined kappa is not nil")
	}
}

func TestCohenKappaEdges(t *testing.T) {
	tests := []struct {
		name    string
		a, b    []string
		kappa   *float64
		percent float64
	}{
		{"no units", nil, nil, nil, 0},
		{"all identical single class: undefined", repeat("x", 5), repeat("x", 5), nil, 1},
		{"single unit, same", []string{"x"}, []string{"x"}, nil, 1},
		{"single unit, different", []string{"x"}, []string{"y"}, ptr(0), 0},
		{"perfect over two classes", []string{"x", "y"}, []string{"x", "y"}, ptr(1), 1},
		{"systematic disagreement", []string{"x", "y"}, []string{"y", "x"}, ptr(-1), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := CohenKappa(tt.a, tt.b)
			if k.Observed != tt.percent {
				t.Errorf("percent %v, want %v", k.Observed, tt.percent)
			}
			if tt.kappa == nil {
				if k.Kappa != nil {
					t.Errorf("kappa %v, want undefined", *k.Kappa)
				}
				return
			}
			near(t, "kappa", k.Kappa, *tt.kappa)
		})
	}
}

func ptr(v float64) *float64 { return &v }

func TestKrippendorffNominalPublishedExample(t *testing.T) {
	// Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability",
	// section C: 4 observers, 12 units, missing values ("." below);
	// α_nominal = 0.743. By hand: n = 40 pairable values (unit 12 has one),
	// n_1..n_5 = 9, 13, 10, 5, 3, Σ_{c≠k} o_ck = 8, Σ_{c≠k} n_c·n_k = 1216,
	// α = 1 − 39·8/1216 = 113/152 = 0.7434.
	rows := []string{
		"1 2 3 3 2 1 4 1 2 . . .",
		"1 2 3 3 2 2 4 1 2 5 . 3",
		". 3 3 3 2 3 4 2 2 5 1 .",
		"1 2 3 3 2 4 4 1 2 5 1 .",
	}
	units := make([][]string, 12)
	for _, r := range rows {
		for u, v := range strings.Fields(r) {
			if v != "." {
				units[u] = append(units[u], v)
			}
		}
	}
	a := KrippendorffNominal(units)
	if a.Units != 11 || a.Values != 40 {
		t.Errorf("pairable units %d values %d, want 11 and 40", a.Units, a.Values)
	}
	near(t, "alpha", a.Alpha, 113.0/152)
}

func TestKrippendorffNominalEdges(t *testing.T) {
	if a := KrippendorffNominal(nil); a.Alpha != nil {
		t.Errorf("no units: %v", *a.Alpha)
	}
	if a := KrippendorffNominal([][]string{{"x"}, {"y"}}); a.Alpha != nil || a.Units != 0 {
		t.Errorf("single values are not pairable: %+v", a)
	}
	if a := KrippendorffNominal([][]string{{"x", "x"}, {"x", "x", "x"}}); a.Alpha != nil {
		t.Errorf("one class everywhere is undefined: %v", *a.Alpha)
	}
	near(t, "perfect", KrippendorffNominal([][]string{{"x", "x"}, {"y", "y", "y"}}).Alpha, 1)
	// Two coders agreeing matches Cohen-like perfect; two units of total
	// disagreement: o_xy = o_yx = 2, n_x = n_y = 2, n = 4:
	// α = 1 − 3·4 / (2·2·2) = −0.5.
	near(t, "disagreement", KrippendorffNominal([][]string{{"x", "y"}, {"y", "x"}}).Alpha, -0.5)
}

func lab(reviewer, decision string, calls ...LabelCall) Label {
	return Label{Item: "it_1", Reviewer: reviewer, Decision: decision, Calls: calls}
}

func call(tool, args string) LabelCall { return LabelCall{Tool: tool, Args: json.RawMessage(args)} }

func TestAgreeStatistics(t *testing.T) {
	items := [][]Label{
		// alice and bob agree on everything.
		{lab("alice", DecisionCall, call("a", `{"x":1}`)), lab("bob", DecisionCall, call("a", `{"x":1.0}`))},
		// same tool, different args.
		{lab("alice", DecisionCall, call("a", `{"x":1}`)), lab("bob", DecisionCall, call("a", `{"x":2}`))},
		// tool confusion a vs b.
		{lab("alice", DecisionCall, call("a", `{}`)), lab("bob", DecisionCall, call("b", `{}`))},
		// no call vs b; carol labels too.
		{lab("alice", DecisionNoCall), lab("bob", DecisionCall, call("b", `{}`)), lab("carol", DecisionNoCall)},
		// one label only: ignored.
		{lab("alice", DecisionNoCall)},
	}
	a := Agree(items)
	if a.Items != 4 {
		t.Errorf("items %d", a.Items)
	}
	// pairs: 1 + 1 + 1 + 3 = 6; exact agreements: item 1 and alice–carol.
	near(t, "exact", a.Exact, 2.0/6)
	// tool agreements: items 1, 2 and alice–carol.
	near(t, "tool", a.Tool, 3.0/6)
	if len(a.Pairs) != 3 || a.Pairs[0].A != "alice" || a.Pairs[0].B != "bob" || a.Pairs[0].Items != 4 || a.Pairs[0].ExactAgreed != 1 {
		t.Fatalf("pairs: %+v", a.Pairs)
	}
	// alice: a a a none; bob: a a b b → po = 0.5, pe = (3/4·2/4) = 0.375,
	// κ = 0.125/0.625 = 0.2.
	near(t, "kappa alice-bob", a.Pairs[0].Kappa.Kappa, 0.2)
	if a.Pairs[1].B != "carol" || a.Pairs[1].Kappa.Kappa != nil || a.Pairs[1].Kappa.Observed != 1 {
		t.Errorf("alice-carol: one item, both none: %+v", a.Pairs[1])
	}
	if a.Args.Pairs != 2 || a.Args.Agreed != 1 {
		t.Errorf("args agreement: %+v", a.Args)
	}
	if len(a.Confusion) != 2 || a.Confusion[0] != (Confusion{A: "(none)", B: "b", Count: 2}) || a.Confusion[1] != (Confusion{A: "a", B: "b", Count: 1}) {
		t.Errorf("confusion: %+v", a.Confusion)
	}
	// Tool a over the 6 pairs: both 2, only the first 1, only the second 0,
	// neither 3: po = 5/6, pe = 3/6·2/6 + 3/6·4/6 = 1/2, κ = 2/3.
	if a.PerTool[1].Tool != "a" || a.PerTool[1].Involved != 3 || a.PerTool[1].Agreed != 2 {
		t.Fatalf("per tool: %+v", a.PerTool)
	}
	near(t, "kappa of tool a", a.PerTool[1].Kappa.Kappa, 2.0/3)
	if a.Alpha.Alpha == nil || a.Alpha.Units != 4 {
		t.Errorf("alpha: %+v", a.Alpha)
	}
}

func TestAgreeEmpty(t *testing.T) {
	a := Agree(nil)
	if a.Items != 0 || a.Exact != nil || a.Tool != nil || a.Alpha.Alpha != nil || len(a.Pairs) != 0 {
		t.Errorf("empty: %+v", a)
	}
	if _, err := json.Marshal(a); err != nil {
		t.Fatal(err)
	}
}

// Status output is compared across runs: kappa and alpha must not change in
// their last digits with map iteration order.
func TestAgreementStatisticsAreReproducible(t *testing.T) {
	classes := []string{"a", "b", "c", "d", "e", "f", "g", "(none)"}
	var ra, rb []string
	var units [][]string
	for i := 0; i < 997; i++ {
		x, y, z := classes[i%8], classes[(i*3+i/7)%8], classes[(i*5+1)%8]
		ra, rb = append(ra, x), append(rb, y)
		units = append(units, []string{x, y, z}[:2+i%2])
	}
	k0, a0 := CohenKappa(ra, rb), KrippendorffNominal(units)
	for i := 0; i < 50; i++ {
		k, a := CohenKappa(ra, rb), KrippendorffNominal(units)
		if k.Expected != k0.Expected || *k.Kappa != *k0.Kappa || *a.Alpha != *a0.Alpha {
			t.Fatalf("run %d: kappa %v/%v alpha %v, first run %v/%v %v", i, k.Expected, *k.Kappa, *a.Alpha, k0.Expected, *k0.Kappa, *a0.Alpha)
		}
	}
}
