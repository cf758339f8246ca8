package review

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

// rowsToUnits reads a rater × unit table ("." for missing) into units.
func rowsToUnits(rows []string) [][]Rating {
	var units [][]Rating
	for r, row := range rows {
		for u, v := range strings.Fields(row) {
			for len(units) <= u {
				units = append(units, nil)
			}
			if v != "." {
				units[u] = append(units[u], Rating{Rater: fmt.Sprintf("r%d", r+1), Class: v})
			}
		}
	}
	return units
}

func nearValue(t *testing.T, what string, e Estimate, want float64) {
	t.Helper()
	near(t, what, e.Value, want)
}

func TestReliableGwetTwoRaterTable(t *testing.T) {
	// Gwet (2014), the 3×3 table of two abstractors (irrCAC's
	// cont3x3abstractors): Cohen's kappa 0.7964094, AC1 0.8493305,
	// Krippendorff's alpha 0.7972585.
	table := [3][3]int{{13, 0, 0}, {0, 20, 7}, {0, 4, 56}}
	names := []string{"Ectopic", "AIU", "NIU"}
	var units [][]Rating
	for i := range table {
		for j, n := range table[i] {
			for range n {
				units = append(units, []Rating{{"A", names[i]}, {"B", names[j]}})
			}
		}
	}
	r := Reliable(units, Bootstrap{})
	nearValue(t, "kappa", r.Kappa, 0.7964094)
	nearValue(t, "ac1", r.AC1, 0.8493305)
	nearValue(t, "alpha", r.Alpha, 0.7972585)
	if r.Units != 100 || r.Pairable != 100 || r.Categories != 3 {
		t.Errorf("counts: %+v", r)
	}
	// Cohen's kappa from the pairs agrees.
	var a, b []string
	for _, u := range units {
		a = append(a, u[0].Class)
		b = append(b, u[1].Class)
	}
	near(t, "cohen", CohenKappa(a, b).Kappa, *r.Kappa.Value)
}

func TestReliableKrippendorffDataWithMissing(t *testing.T) {
	// Krippendorff (2011)'s 4 observers × 12 units with missing values, as
	// Gwet analyses it (irrCAC's cac.raw4raters, where the lone value of
	// unit 12 is the third rater's): AC1 0.77544 (pa 0.8181818, pe
	// 0.1903212), Conger's kappa 0.76282, alpha 0.74342. Unit 12 has one
	// value: it counts for AC1's class shares and the raters' shares but not
	// for pa.
	units := rowsToUnits([]string{
		"1 2 3 3 2 1 4 1 2 . . .",
		"1 2 3 3 2 2 4 1 2 5 . .",
		". 3 3 3 2 3 4 2 2 5 1 3",
		"1 2 3 3 2 4 4 1 2 5 1 .",
	})
	r := Reliable(units, Bootstrap{})
	nearValue(t, "ac1", r.AC1, 0.77544)
	nearValue(t, "kappa", r.Kappa, 0.76282)
	nearValue(t, "alpha", r.Alpha, 0.74342)
	if r.Units != 12 || r.Pairable != 11 {
		t.Errorf("units %d pairable %d", r.Units, r.Pairable)
	}
}

func TestReliableGwetSixRaters(t *testing.T) {
	// Gwet (2014)'s 15 patients × 6 psychiatrists as a distribution of
	// raters by category (irrCAC's distrib.6raters): AC1 0.4448007,
	// Krippendorff's alpha 0.4204384. Neither depends on which rater gave
	// which class, so raters are numbered in column order.
	dist := [][5]int{
		{0, 0, 0, 6, 0}, {0, 3, 0, 0, 3}, {0, 1, 4, 0, 1}, {0, 0, 0, 0, 6}, {0, 3, 0, 3, 0},
		{2, 0, 4, 0, 0}, {0, 0, 4, 0, 2}, {2, 0, 3, 1, 0}, {2, 0, 0, 4, 0}, {0, 0, 0, 0, 6},
		{1, 0, 0, 5, 0}, {1, 1, 0, 4, 0}, {0, 3, 3, 0, 0}, {1, 0, 0, 5, 0}, {0, 2, 0, 3, 1},
	}
	var units [][]Rating
	for _, row := range dist {
		var u []Rating
		for c, n := range row {
			for range n {
				u = append(u, Rating{Rater: fmt.Sprintf("r%d", len(u)), Class: fmt.Sprint(c)})
			}
		}
		units = append(units, u)
	}
	r := Reliable(units, Bootstrap{})
	nearValue(t, "ac1", r.AC1, 0.4448007)
	nearValue(t, "alpha", r.Alpha, 0.4204384)
}

func TestReliableHandComputedMissingLabels(t *testing.T) {
	// Three reviewers, three items, missing labels:
	//   item 1: A x, B x, C y   item 2: A y, B y   item 3: C x (alone)
	// pa = ((2·1)/(3·2) + 1)/2 = 2/3 over the two pairable items.
	// AC1: π_x = (2/3 + 0 + 1)/3 = 5/9, π_y = 4/9, pe = 2·5/9·4/9 = 40/81,
	//      AC1 = (2/3 − 40/81)/(41/81) = 14/41.
	// Conger: every reviewer put half their items in each class, so s² = 0,
	//      pe = 1/2, κ = (2/3 − 1/2)/(1/2) = 1/3.
	// α: n = 5 pairable values (x 2, y 3), disagreement (9−4−1)/2 = 2 in
	//      item 1, α = 1 − 4·2/(25−4−9) = 1/3.
	// With two classes, "is it x?" is the same question: per tool equals
	// overall.
	units := [][]Rating{
		{{"A", "x"}, {"B", "x"}, {"C", "y"}},
		{{"A", "y"}, {"B", "y"}},
		{{"C", "x"}},
	}
	r := Reliable(units, Bootstrap{})
	nearValue(t, "ac1", r.AC1, 14.0/41)
	nearValue(t, "kappa", r.Kappa, 1.0/3)
	nearValue(t, "alpha", r.Alpha, 1.0/3)
	if len(r.PerTool) != 2 || r.PerTool[0].Tool != "x" {
		t.Fatalf("per tool: %+v", r.PerTool)
	}
	for _, pt := range r.PerTool {
		nearValue(t, pt.Tool+" ac1", pt.AC1, 14.0/41)
		nearValue(t, pt.Tool+" kappa", pt.Kappa, 1.0/3)
		nearValue(t, pt.Tool+" alpha", pt.Alpha, 1.0/3)
	}
	// A reviewer's second rating of the same item is ignored.
	dup := append([][]Rating{}, units...)
	dup[1] = append([]Rating{}, units[1]...)
	dup[1] = append(dup[1], Rating{"A", "x"})
	if got := Reliable(dup, Bootstrap{}); !reflect.DeepEqual(got, r) {
		t.Errorf("duplicate rating changed the result: %+v", got)
	}
}

func TestReliablePerToolThreeClasses(t *testing.T) {
	// Two raters; per tool "is it a?": a/a, a/b, b/b, c/c.
	// 2×2 for a: yes/yes 1, yes/no 1, no/no 2 → po = 3/4,
	// pe(Cohen) = (2/4)(1/4) + (2/4)(3/4) = 1/2, κ = 1/2.
	// AC1: π_a = 3/8, pe = 2·3/8·5/8 = 15/32, AC1 = (24/32 − 15/32)/(17/32) = 9/17.
	units := [][]Rating{
		{{"A", "a"}, {"B", "a"}},
		{{"A", "a"}, {"B", "b"}},
		{{"A", "b"}, {"B", "b"}},
		{{"A", "c"}, {"B", "c"}},
	}
	r := Reliable(units, Bootstrap{})
	a := r.PerTool[0]
	if a.Tool != "a" {
		t.Fatalf("per tool: %+v", r.PerTool)
	}
	nearValue(t, "kappa a", a.Kappa, 0.5)
	nearValue(t, "ac1 a", a.AC1, 9.0/17)
	near(t, "binary kappa", BinaryKappa(1, 1, 0, 2).Kappa, 0.5)
}

func TestReliableUndefinedStaysNil(t *testing.T) {
	empty := Reliable(nil, DefaultBootstrap)
	if empty.Kappa.Value != nil || empty.AC1.Value != nil || empty.Alpha.Value != nil || len(empty.PerTool) != 0 {
		t.Errorf("no data: %+v", empty)
	}
	// One class everywhere: chance explains everything.
	same := Reliable([][]Rating{{{"A", "x"}, {"B", "x"}}, {{"A", "x"}, {"B", "x"}}}, DefaultBootstrap)
	if same.Kappa.Value != nil || same.AC1.Value != nil || same.Alpha.Value != nil {
		t.Errorf("one class: %+v", same)
	}
	if same.Kappa.Low != nil || same.AC1.High != nil {
		t.Error("an undefined statistic has an interval")
	}
	// Only single ratings: nothing pairable.
	single := Reliable([][]Rating{{{"A", "x"}}, {{"B", "y"}}}, DefaultBootstrap)
	if single.AC1.Value != nil || single.Pairable != 0 {
		t.Errorf("single ratings: %+v", single)
	}
}

func TestReliableBootstrapIsSeededAndBracketsTheValue(t *testing.T) {
	units := pairedUnits(200)
	r1 := Reliable(units, DefaultBootstrap)
	r2 := Reliable(units, DefaultBootstrap)
	if !reflect.DeepEqual(r1, r2) {
		t.Fatal("the same seed gave different intervals")
	}
	for name, e := range map[string]Estimate{"kappa": r1.Kappa, "ac1": r1.AC1, "alpha": r1.Alpha, "a ac1": r1.PerTool[0].AC1} {
		if e.Low == nil || e.High == nil {
			t.Fatalf("%s: no interval", name)
		}
		if !(*e.Low <= *e.Value && *e.Value <= *e.High) || *e.High-*e.Low > 0.2 || *e.High-*e.Low <= 0 {
			t.Errorf("%s: %.4f not inside a sensible [%.4f, %.4f]", name, *e.Value, *e.Low, *e.High)
		}
	}
	other := Reliable(units, Bootstrap{Replicates: 1000, Seed: 2})
	if *other.AC1.Low == *r1.AC1.Low && *other.AC1.High == *r1.AC1.High {
		t.Error("another seed gave the same interval")
	}
	if math.Abs(*other.AC1.Low-*r1.AC1.Low) > 0.03 {
		t.Errorf("intervals unstable across seeds: %.4f vs %.4f", *other.AC1.Low, *r1.AC1.Low)
	}
}

func BenchmarkReliable(b *testing.B) {
	// 50k items, two of five reviewers each, 20 tools.
	var units [][]Rating
	for i := range 50000 {
		x := fmt.Sprintf("t%d", i%20)
		y := x
		if i%9 == 0 {
			y = fmt.Sprintf("t%d", (i+3)%20)
		}
		units = append(units, []Rating{{fmt.Sprintf("r%d", i%5), x}, {fmt.Sprintf("r%d", (i+1)%5), y}})
	}
	b.ReportAllocs()
	for b.Loop() {
		Reliable(units, DefaultBootstrap)
	}
}

// The manifest's intervals are a record: the same labels give the same
// bounds, to the last bit, from release to release.
func TestDefaultBootstrapIntervalsArePinned(t *testing.T) {
	r := Reliable(pairedUnits(200), DefaultBootstrap)
	got := []*float64{r.Kappa.Low, r.Kappa.High, r.AC1.Low, r.AC1.High, r.Alpha.Low, r.Alpha.High}
	want := []float64{0.73974820638261973, 0.87294836682961108, 0.74037465331117758, 0.8734741633415688, 0.74032930327911184, 0.87323049831171906}
	for i, g := range got {
		if g == nil || *g != want[i] {
			t.Fatalf("bound %d: %v, want %.17g", i, g, want[i])
		}
	}
	if r.Replicates != 1000 || r.Seed != 1 {
		t.Errorf("replicates %d seed %d", r.Replicates, r.Seed)
	}
}

// A live status draws at most LiveBootstrap.MaxDraws units: the same
// intervals as the manifest's on a small project, fewer replicates (never
// below 200) on a larger one.
func TestLiveBootstrapDrawsWithinItsBudget(t *testing.T) {
	small := pairedUnits(100)
	live, def := Reliable(small, LiveBootstrap), Reliable(small, DefaultBootstrap)
	if live.Replicates != 1000 || !reflect.DeepEqual(live.AC1, def.AC1) || !reflect.DeepEqual(live.PerTool, def.PerTool) {
		t.Errorf("100 items: live %d replicates %+v, manifest %+v", live.Replicates, live.AC1, def.AC1)
	}
	for n, want := range map[int]int{200: 500, 400: 250, 500: 200, 5000: 200} {
		r := Reliable(pairedUnits(n), LiveBootstrap)
		if r.Replicates != want || r.AC1.Low == nil || !(*r.AC1.Low <= *r.AC1.Value && *r.AC1.Value <= *r.AC1.High) {
			t.Errorf("%d items: %d replicates (want %d), AC1 %+v", n, r.Replicates, want, r.AC1)
		}
	}
	// A budget never raises the count asked for.
	if r := Reliable(pairedUnits(5000), Bootstrap{Replicates: 100, Seed: 1, MaxDraws: 1000}); r.Replicates != 100 {
		t.Errorf("asked for 100 replicates, drew %d", r.Replicates)
	}
}

// pairedUnits is n items rated by A and B over four classes, disagreeing on
// every seventh.
func pairedUnits(n int) [][]Rating {
	var units [][]Rating
	tools := []string{"a", "b", "c", "(none)"}
	for i := range n {
		x := tools[i%4]
		y := x
		if i%7 == 0 {
			y = tools[(i+1)%4]
		}
		units = append(units, []Rating{{"A", x}, {"B", y}})
	}
	return units
}
