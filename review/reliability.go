package review

import (
	"math"
	"math/bits"
	"sort"
	"strconv"
	"strings"
)

// Rating is one rater's class for one unit.
type Rating struct {
	Rater string
	Class string
}

// Estimate is a statistic and its bootstrap 95% confidence interval. Value
// is nil when the statistic is undefined on the data; Low and High are nil
// when the interval is (see Bootstrap).
type Estimate struct {
	Value *float64 `json:"value"`
	Low   *float64 `json:"low"`
	High  *float64 `json:"high"`
}

// Reliability is chance-corrected agreement on the tool class (the first
// tool, "(none)" for no call) with intervals, overall and per tool.
type Reliability struct {
	// Units is the number of items with at least one rating; Pairable those
	// with two or more; Categories the number of classes used (q).
	Units      int `json:"units"`
	Pairable   int `json:"pairable"`
	Categories int `json:"categories"`
	Bootstrap
	// Kappa is Conger's kappa: Cohen's kappa generalised to any number of
	// raters with missing ratings; with two raters rating every unit it is
	// Cohen's kappa.
	Kappa Estimate `json:"kappa"`
	// AC1 is Gwet's first-order agreement coefficient.
	AC1 Estimate `json:"ac1"`
	// Alpha is Krippendorff's alpha (nominal).
	Alpha Estimate `json:"alpha"`
	// PerTool: the same three on the yes/no question "is it this tool?".
	PerTool []ToolReliability `json:"per_tool"`
}

// ToolReliability is the reliability of one tool class as a yes/no question.
type ToolReliability struct {
	Tool  string   `json:"tool"`
	Kappa Estimate `json:"kappa"`
	AC1   Estimate `json:"ac1"`
	Alpha Estimate `json:"alpha"`
}

// Bootstrap says how intervals are drawn: Replicates resamples of the units
// with replacement from a PCG generator seeded with Seed; the interval is the
// 2.5th to 97.5th percentile of the replicates where the statistic is
// defined, and nil when it is undefined on the data or on more than one
// replicate in ten (an interval over the rest would be too narrow).
type Bootstrap struct {
	Replicates int    `json:"replicates"`
	Seed       uint64 `json:"seed"`
	// MaxDraws bounds the work: a bootstrap costs one draw per unit per
	// replicate, and past MaxDraws the replicates are cut (to no fewer than
	// minReplicates); Reliability.Replicates says how many were drawn. Zero
	// means defaultMaxDraws.
	MaxDraws int `json:"-"`
}

// With more than defaultMaxDraws/minReplicates units (50k) the interval is
// narrow and its ends move by less than a thousandth between seeds.
const (
	defaultMaxDraws = 10_000_000
	minReplicates   = 200
)

// DefaultBootstrap is what the manifest uses: the same data always gives
// the same intervals.
var DefaultBootstrap = Bootstrap{Replicates: 1000, Seed: 1}

// LiveBootstrap is what status and the dashboard use: they are asked again
// after every label while a team labels, so each answer draws at most 100k
// units (about a millisecond with the statistics of each replicate): 1000
// replicates up to 100 items, then fewer, down to 200 from 500 items on
// (DefaultBootstrap's count past 50k items). The same data still always
// gives the same intervals.
var LiveBootstrap = Bootstrap{Replicates: 1000, Seed: 1, MaxDraws: 100_000}

// ToolRatings turns items' labels into units of tool classes, one rating per
// label.
func ToolRatings(items [][]Label) [][]Rating {
	out := make([][]Rating, 0, len(items))
	for _, ls := range items {
		if len(ls) == 0 {
			continue
		}
		u := make([]Rating, len(ls))
		for i, l := range ls {
			u[i] = Rating{Rater: l.Reviewer, Class: ToolClass(l)}
		}
		out = append(out, u)
	}
	return out
}

// Reliable computes Reliability over units (each the ratings of one item;
// a rater rates a unit at most once, later ratings by the same rater are
// ignored; units without ratings are ignored).
//
// With r_ik raters putting unit i in class k, r_i = Σ_k r_ik, n units rated
// at least once, n' rated at least twice, q classes:
//
//	pa  = 1/n' Σ_{r_i≥2} Σ_k r_ik(r_ik−1) / (r_i(r_i−1))   (all three)
//	AC1 = (pa − pe)/(1 − pe), pe = 1/(q−1) Σ_k π_k(1−π_k), π_k = 1/n Σ_i r_ik/r_i
//	κ   = (pa − pe)/(1 − pe), pe = Σ_k (p̄_k² − s_k²/R), with p_gk the share of
//	      rater g's units put in k, p̄_k its mean over the R raters and s_k²
//	      its variance (R−1 denominator) — Conger's kappa as Gwet (2014)
//	      writes it for missing ratings
//	α   nominal, as KrippendorffNominal, over the pairable units
//
// AC1 is undefined when q < 2, κ when R < 2 or pe = 1, all three when no
// unit is pairable.
func Reliable(units [][]Rating, b Bootstrap) Reliability {
	d := newRatingData(units)
	maxDraws := b.MaxDraws
	if maxDraws <= 0 {
		maxDraws = defaultMaxDraws
	}
	if n := len(d.unitOf); n > 0 && b.Replicates > 0 && b.Replicates*n > maxDraws {
		b.Replicates = min(b.Replicates, max(minReplicates, maxDraws/n))
	}
	out := Reliability{Units: d.units, Categories: len(d.classes), Bootstrap: b}
	for _, g := range d.groups {
		if g.m >= 2 {
			out.Pairable += int(g.count)
		}
	}
	ones := make([]float64, len(d.groups))
	for i, g := range d.groups {
		ones[i] = g.count
	}
	k := 3 + 3*len(d.classes)
	sc := d.newScratch()
	point := make([]float64, k)
	d.stats(ones, sc, point)
	reps := d.replicates(b, sc)
	est := func(i int) Estimate { return interval(point[i], reps, i) }
	out.Kappa, out.AC1, out.Alpha = est(0), est(1), est(2)
	out.PerTool = make([]ToolReliability, len(d.classes))
	for c, name := range d.classes {
		base := 3 + 3*c
		out.PerTool[c] = ToolReliability{Tool: name, Kappa: est(base), AC1: est(base + 1), Alpha: est(base + 2)}
	}
	return out
}

// ratingGroup is every unit with the same raters giving the same classes:
// their statistics are the same, so they are computed once, weighted.
type ratingGroup struct {
	count   float64 // units in the group
	m       int     // ratings per unit
	raters  []int   // rater index per rating
	classes []int   // class index per rating
	// distinct classes of the unit and how often each occurs
	distinct []int
	counts   []int
}

type ratingData struct {
	units   int
	raters  []string
	classes []string // sorted
	groups  []ratingGroup
	unitOf  []int32 // unit → group, in unit order (for resampling)
}

func newRatingData(units [][]Rating) *ratingData {
	d := &ratingData{}
	raterIdx, classIdx := map[string]int{}, map[string]int{}
	for _, u := range units {
		for _, r := range u {
			if _, ok := raterIdx[r.Rater]; !ok {
				raterIdx[r.Rater] = 0
				d.raters = append(d.raters, r.Rater)
			}
			if _, ok := classIdx[r.Class]; !ok {
				classIdx[r.Class] = 0
				d.classes = append(d.classes, r.Class)
			}
		}
	}
	sort.Strings(d.raters)
	sort.Strings(d.classes)
	for i, r := range d.raters {
		raterIdx[r] = i
	}
	for i, c := range d.classes {
		classIdx[c] = i
	}
	groupOf := map[string]int{}
	var key strings.Builder
	for _, u := range units {
		var g ratingGroup
		for _, r := range u {
			ri := raterIdx[r.Rater]
			if indexOf(g.raters, ri) >= 0 {
				continue // a rater's later rating of the same unit
			}
			g.raters = append(g.raters, ri)
			g.classes = append(g.classes, classIdx[r.Class])
		}
		if len(g.raters) == 0 {
			continue
		}
		d.units++
		sort.Sort(byRater{&g})
		key.Reset()
		for i := range g.raters {
			key.WriteString(strconv.Itoa(g.raters[i]))
			key.WriteByte(':')
			key.WriteString(strconv.Itoa(g.classes[i]))
			key.WriteByte(',')
		}
		gi, ok := groupOf[key.String()]
		if !ok {
			g.m = len(g.raters)
			for _, c := range g.classes {
				j := indexOf(g.distinct, c)
				if j < 0 {
					g.distinct = append(g.distinct, c)
					g.counts = append(g.counts, 0)
					j = len(g.distinct) - 1
				}
				g.counts[j]++
			}
			gi = len(d.groups)
			groupOf[key.String()] = gi
			d.groups = append(d.groups, g)
		}
		d.groups[gi].count++
		d.unitOf = append(d.unitOf, int32(gi))
	}
	return d
}

type byRater struct{ g *ratingGroup }

func (b byRater) Len() int           { return len(b.g.raters) }
func (b byRater) Less(i, j int) bool { return b.g.raters[i] < b.g.raters[j] }
func (b byRater) Swap(i, j int) {
	b.g.raters[i], b.g.raters[j] = b.g.raters[j], b.g.raters[i]
	b.g.classes[i], b.g.classes[j] = b.g.classes[j], b.g.classes[i]
}

func indexOf(xs []int, x int) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

// statsScratch is the working memory of stats, made once per Reliable and
// reused by every replicate.
type statsScratch struct {
	piSum, ncAlpha, paAdj, doBin, pbar, s2 []float64 // per class
	ng                                     []float64 // per rater
	classif                                []float64 // per rater × class
}

func (d *ratingData) newScratch() *statsScratch {
	q, R := len(d.classes), len(d.raters)
	perClass := make([]float64, 6*q)
	return &statsScratch{piSum: perClass[:q], ncAlpha: perClass[q : 2*q], paAdj: perClass[2*q : 3*q],
		doBin: perClass[3*q : 4*q], pbar: perClass[4*q : 5*q], s2: perClass[5*q:],
		ng: make([]float64, R), classif: make([]float64, R*q)}
}

// stats computes into out (3 + 3q long), with w[g] units of each group,
// the statistics in the order κ, AC1, α, then κ, AC1, α per class. NaN
// stands for undefined. sc is cleared first.
//
// It is long because the three coefficients and their per-class forms share
// one pass over the weighted units and the same marginals.
func (d *ratingData) stats(w []float64, sc *statsScratch, out []float64) {
	q, R := len(d.classes), len(d.raters)
	var nAll, nPair, paSum, doSum, nAlpha float64
	piSum, ncAlpha := sc.piSum, sc.ncAlpha
	paAdj := sc.paAdj // per class: Σ w (pa of the yes/no question − 1)
	doBin, ng, classif := sc.doBin, sc.ng, sc.classif
	for _, xs := range [][]float64{piSum, ncAlpha, paAdj, doBin, sc.pbar, sc.s2, ng, classif} {
		clear(xs)
	}
	for gi := range d.groups {
		wt := w[gi]
		if wt == 0 {
			continue
		}
		g := &d.groups[gi]
		m := float64(g.m)
		nAll += wt
		for i, r := range g.raters {
			ng[r] += wt
			classif[r*q+g.classes[i]] += wt
		}
		for j, c := range g.distinct {
			piSum[c] += wt * float64(g.counts[j]) / m
		}
		if g.m < 2 {
			continue
		}
		nPair += wt
		nAlpha += wt * m
		var agree, same float64
		for j, c := range g.distinct {
			a := float64(g.counts[j])
			agree += a * (a - 1)
			same += a * a
			ncAlpha[c] += wt * a
			bin := (a*(a-1) + (m-a)*(m-a-1)) / (m * (m - 1))
			paAdj[c] += wt * (bin - 1)
			doBin[c] += wt * 2 * a * (m - a) / (m - 1)
		}
		paSum += wt * agree / (m * (m - 1))
		doSum += wt * (m*m - same) / (m - 1)
	}
	for i := range out {
		out[i] = math.NaN()
	}
	if nPair == 0 {
		return
	}
	pa := paSum / nPair
	// Conger's kappa over the raters who rated something.
	var pbar, s2 []float64
	raters := 0
	for r := 0; r < R; r++ {
		if ng[r] > 0 {
			raters++
		}
	}
	if raters >= 2 {
		pbar, s2 = sc.pbar, sc.s2
		for r := 0; r < R; r++ {
			if ng[r] == 0 {
				continue
			}
			for c := 0; c < q; c++ {
				pbar[c] += classif[r*q+c] / ng[r] / float64(raters)
			}
		}
		for r := 0; r < R; r++ {
			if ng[r] == 0 {
				continue
			}
			for c := 0; c < q; c++ {
				dv := classif[r*q+c]/ng[r] - pbar[c]
				s2[c] += dv * dv / float64(raters-1)
			}
		}
		var pe float64
		for c := 0; c < q; c++ {
			pe += pbar[c]*pbar[c] - s2[c]/float64(raters)
		}
		out[0] = chanceCorrected(pa, pe)
	}
	if q >= 2 {
		var pe float64
		for c := 0; c < q; c++ {
			pi := piSum[c] / nAll
			pe += pi * (1 - pi)
		}
		out[1] = chanceCorrected(pa, pe/float64(q-1))
	}
	expected := nAlpha * nAlpha
	for c := 0; c < q; c++ {
		expected -= ncAlpha[c] * ncAlpha[c]
	}
	if expected > 0 {
		out[2] = 1 - (nAlpha-1)*doSum/expected
	}
	for c := 0; c < q; c++ {
		base := 3 + 3*c
		paC := 1 + paAdj[c]/nPair
		if raters >= 2 {
			// For a yes/no question the two classes' shares mirror each
			// other: the same variance, means p̄ and 1 − p̄.
			pe := pbar[c]*pbar[c] + (1-pbar[c])*(1-pbar[c]) - 2*s2[c]/float64(raters)
			out[base] = chanceCorrected(paC, pe)
		}
		pi := piSum[c] / nAll
		out[base+1] = chanceCorrected(paC, 2*pi*(1-pi))
		nT := ncAlpha[c]
		if e := 2 * nT * (nAlpha - nT); e > 0 {
			out[base+2] = 1 - (nAlpha-1)*doBin[c]/e
		}
	}
}

// chanceCorrected is (pa − pe)/(1 − pe), NaN when pe is 1 (within rounding).
func chanceCorrected(pa, pe float64) float64 {
	if 1-pe < 1e-12 {
		return math.NaN()
	}
	return (pa - pe) / (1 - pe)
}

// replicates draws b.Replicates bootstrap resamples of the units and returns
// each one's statistics.
func (d *ratingData) replicates(b Bootstrap, sc *statsScratch) [][]float64 {
	n := len(d.unitOf)
	if n == 0 || b.Replicates <= 0 {
		return nil
	}
	rng := wyrand(b.Seed)
	counts := make([]int32, len(d.groups))
	w := make([]float64, len(d.groups))
	out := make([][]float64, b.Replicates)
	k := 3 + 3*len(d.classes)
	block := make([]float64, b.Replicates*k)
	un := uint64(n)
	for r := range out {
		clear(counts)
		for range n {
			// Lemire's multiply-shift: uniform in [0, n) up to a bias of
			// n/2⁶⁴, negligible here.
			hi, _ := bits.Mul64(rng.next(), un)
			counts[d.unitOf[hi]]++
		}
		for i, c := range counts {
			w[i] = float64(c)
		}
		out[r] = block[r*k : (r+1)*k : (r+1)*k]
		d.stats(w, sc, out[r])
	}
	return out
}

// wyrand is Wang Yi's wyrand generator: one add and one 128-bit multiply
// per number, fast enough that resampling 50k items a thousand times stays
// well under a tenth of a second. The seed fixes the sequence.
type wyrand uint64

func (s *wyrand) next() uint64 {
	*s += 0xa0761d6478bd642f
	hi, lo := bits.Mul64(uint64(*s), uint64(*s)^0xe7037ed1a0b428db)
	return hi ^ lo
}

// interval is the estimate of statistic i: its point value and the
// percentile interval of its defined replicates.
func interval(point float64, reps [][]float64, i int) Estimate {
	var e Estimate
	if math.IsNaN(point) {
		return e
	}
	v := point
	e.Value = &v
	vals := make([]float64, 0, len(reps))
	for _, r := range reps {
		if !math.IsNaN(r[i]) {
			vals = append(vals, r[i])
		}
	}
	if len(reps) == 0 || len(vals)*10 < len(reps)*9 {
		return e
	}
	sort.Float64s(vals)
	lo, hi := percentile(vals, 0.025), percentile(vals, 0.975)
	e.Low, e.High = &lo, &hi
	return e
}

// percentile of sorted values, interpolating linearly between order
// statistics (R's type 7).
func percentile(sorted []float64, p float64) float64 {
	h := p * float64(len(sorted)-1)
	lo := int(math.Floor(h))
	if lo+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}
