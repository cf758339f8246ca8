package score

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// The seed systems' own numbers (profiles pipeline, tutorial and
// futureagi; REPORT.md "Seed profiles"). Items are still matched with
// goldtrace's default rules, so the report keeps its verdicts, error kinds
// and confusion matrix; each item and group also carries the seed's numbers
// under the seed's names.

// Seed metric names, in report order.
const (
	SeedToolNameMatch         = "tool_name_match"
	SeedToolArgsShapeMatch    = "tool_args_shape_match"
	SeedSelectionAccuracy     = "selection_accuracy"
	SeedAvgParamAccuracy      = "avg_param_accuracy"
	SeedSequenceAccuracy      = "sequence_accuracy"
	SeedCompositeScore        = "composite_score"
	SeedCoverage              = "coverage"
	SeedValidity              = "validity"
	SeedCallSuccess           = "call_success"
	SeedToolSelectionAccuracy = "tool_selection_accuracy"
	// SeedInvalidToolRate is futureagi's overall rate (not per item).
	SeedInvalidToolRate = "invalid_tool_rate"
)

// seedNames indexes ItemResult.Seed.
var seedNames = [...]string{
	SeedToolNameMatch, SeedToolArgsShapeMatch,
	SeedSelectionAccuracy, SeedAvgParamAccuracy, SeedSequenceAccuracy, SeedCompositeScore,
	SeedCoverage, SeedValidity, SeedCallSuccess, SeedToolSelectionAccuracy,
}

const (
	seedNone = iota
	seedPipeline
	seedTutorial
	seedFutureAGI
)

// seedRange is the slice of seedNames a seed profile fills.
func seedRange(seed int) (lo, hi int) {
	switch seed {
	case seedPipeline:
		return 0, 2
	case seedTutorial:
		return 2, 6
	case seedFutureAGI:
		return 6, 10
	}
	return 0, 0
}

// SeedScores are one item's seed numbers by seedNames index; NaN = not
// computable (null).
type SeedScores [len(seedNames)]float64

// Param match modes of the tutorial profile (the seed's param_match_mode).
const (
	ParamExact  = "exact"
	ParamSubset = "subset"
	ParamFuzzy  = "fuzzy"
)

// DefaultTutorialWeights weigh selection, parameters and sequence in the
// tutorial's composite_score.
var DefaultTutorialWeights = [3]float64{0.4, 0.4, 0.2}

// TutorialProfile returns the tutorial profile with the given param mode
// (exact, subset or fuzzy) and composite weights.
func TutorialProfile(paramMode string, weights [3]float64) (Profile, error) {
	switch paramMode {
	case "":
		paramMode = ParamExact
	case ParamExact, ParamSubset, ParamFuzzy:
	default:
		return Profile{}, fmt.Errorf("param mode must be exact, subset or fuzzy, not %q", paramMode)
	}
	for _, w := range weights {
		if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
			return Profile{}, fmt.Errorf("weights must be non-negative numbers")
		}
	}
	p := ProfileTutorial
	p.paramMode, p.weights = paramMode, weights
	return p, nil
}

// ParseWeights reads "W1,W2,W3" (selection, parameters, sequence).
func ParseWeights(s string) ([3]float64, error) {
	var w [3]float64
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return w, fmt.Errorf("weights %q: want three numbers SELECTION,PARAMS,SEQUENCE (e.g. 0.4,0.4,0.2)", s)
	}
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || v < 0 || math.IsInf(v, 0) {
			return w, fmt.Errorf("weights %q: %q is not a non-negative number", s, p)
		}
		w[i] = v
	}
	return w, nil
}

// seedItem fills r.Seed for the seed profile, from the item in hand (s.c,
// the prediction's calls, their parsed arguments).
func (s *Scorer) seedItem(p *Prediction, r *ItemResult) {
	r.Seed = new(SeedScores)
	for i := range r.Seed {
		r.Seed[i] = math.NaN()
	}
	r.seed = int8(s.profile.seed)
	switch s.profile.seed {
	case seedPipeline:
		s.seedPipeline(r)
	case seedTutorial:
		s.seedTutorial(r)
	case seedFutureAGI:
		s.seedFutureAGI(p, r)
	}
}

func boolScore(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// seedPipeline is the production pipeline's Step-2 graders: the first
// predicted call's name against expected_tool (no call: None), and its
// argument keys and Python types against expected_args (no call: {}).
func (s *Scorer) seedPipeline(r *ItemResult) {
	var expTool string
	hasExp := len(s.c.Expected) > 0
	exp := s.emptyObject()
	if hasExp {
		expTool = s.c.Expected[0].Tool
		if e := s.parseArgs(s.c.Expected[0].Args); e >= 0 {
			exp = e
		}
	}
	act := s.emptyObject()
	nameMatch := !hasExp
	if len(s.calls) > 0 {
		nameMatch = hasExp && s.calls[0].Name == expTool
		act = s.predArgs[0] // -1: not a dict, never the same shape
	}
	r.Seed[0] = boolScore(nameMatch)
	r.Seed[1] = boolScore(act >= 0 && s.pyShapeMatch(act, exp))
}

// pyShapeMatch is set(actual.keys()) == set(expected.keys()) and, for every
// expected key, type(actual.get(k)) == type(expected.get(k)).
func (s *Scorer) pyShapeMatch(act, exp int32) bool {
	na, ne := 0, 0
	for c := s.f.Nodes[act].First; c >= 0; c = s.f.Nodes[c].Next {
		na++
	}
	for c := s.f.Nodes[exp].First; c >= 0; c = s.f.Nodes[c].Next {
		ne++
		a := s.f.Member(act, s.f.Nodes[c].Key)
		if a < 0 || pyType(&s.f.Nodes[a]) != pyType(&s.f.Nodes[c]) {
			return false
		}
	}
	return na == ne // every expected key is present, so equal counts = equal sets
}

// seedTutorial is full_tool_accuracy_report: positional selection, the mean
// parameter accuracy over paired calls (rounded to 3), LCS sequence
// accuracy, and the weighted composite (rounded to 3).
func (s *Scorer) seedTutorial(r *ItemResult) {
	exp := s.c.Expected
	n, m := len(exp), len(s.calls)
	var sel float64
	if n == 0 {
		sel = boolScore(m == 0)
	} else {
		matched := 0
		for i := 0; i < n && i < m; i++ {
			if s.calls[i].Name == exp[i].Tool {
				matched++
			}
		}
		sel = float64(matched) / float64(n)
	}
	var sum float64
	paired := 0
	for i := 0; i < n && i < m; i++ {
		sum += s.paramAccuracy(i)
		paired++
	}
	avg := 0.0
	if paired > 0 {
		avg = sum / float64(paired)
	}
	seq := 1.0
	if n > 0 {
		seq = float64(lcsNames(exp, s.calls)) / float64(n)
	}
	w := s.profile.weights
	r.Seed[2] = sel
	r.Seed[3] = pyRound3(avg)
	r.Seed[4] = seq
	// Explicit conversions keep Go from fusing multiply-adds: the sum is
	// Python's, operation by operation.
	r.Seed[5] = pyRound3(float64(float64(sel*w[0])+float64(avg*w[1])) + float64(seq*w[2]))
}

// paramAccuracy is score_parameters(actual[i], expected[i], mode)
// ["param_accuracy"]: the share of expected params whose value equals the
// actual one (a missing param reads as None), 1.0 with no expected params.
// Arguments that are not a JSON object read as {}.
func (s *Scorer) paramAccuracy(i int) float64 {
	exp := s.parseArgs(s.c.Expected[i].Args)
	if exp < 0 {
		exp = s.emptyObject()
	}
	act := s.predArgs[i]
	total, correct := 0, 0
	for c := s.f.Nodes[exp].First; c >= 0; c = s.f.Nodes[c].Next {
		total++
		a := int32(-1)
		if act >= 0 {
			a = s.f.Member(act, s.f.Nodes[c].Key)
		}
		if a < 0 {
			if s.f.Nodes[c].Kind == gold.KindNull {
				correct++ // actual.get(key) is None == None
			}
			continue
		}
		if s.pyEqual(a, c) || (s.profile.paramMode == ParamFuzzy && s.f.Nodes[a].Kind == gold.KindString &&
			s.f.Nodes[c].Kind == gold.KindString && pyLowerStrip(s.f.Nodes[a].Text) == pyLowerStrip(s.f.Nodes[c].Text)) {
			correct++
		}
	}
	if total == 0 {
		return 1
	}
	return float64(correct) / float64(total)
}

func lcsNames(exp []gold.ExpectedCall, calls []trace.Call) int {
	n, m := len(exp), len(calls)
	if m == 0 {
		return 0
	}
	prev := make([]int, m+1)
	cur := make([]int, m+1)
	for i := 1; i <= n; i++ {
		for j := 1; j <= m; j++ {
			switch {
			case exp[i-1].Tool == calls[j-1].Name:
				cur[j] = prev[j-1] + 1
			case prev[j] >= cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	return prev[m]
}

// seedFutureAGI is ToolSelectionAccuracy: coverage of the required tools,
// validity against the available tools, the success rate of the calls, and
// their weighted mean re-normalised over what can be computed.
func (s *Scorer) seedFutureAGI(p *Prediction, r *ItemResult) {
	st := futureStats(s.c, p)
	r.Seed[6], r.Seed[7], r.Seed[8], r.Seed[9] = st.scores()
	r.futureAGI = &st
}

// futureCounts are the inputs of ToolSelectionAccuracy for one item or
// trajectory.
type futureCounts struct {
	used, required map[string]bool
	catalogued     bool // the available tools are known
	calls, valid   int
	known, success int
}

func futureStats(c *Case, p *Prediction) futureCounts {
	st := futureCounts{used: map[string]bool{}, required: map[string]bool{}, catalogued: len(c.Tools) > 0}
	for _, e := range c.Expected {
		st.required[e.Tool] = true
	}
	for i, call := range p.Calls {
		st.used[call.Name] = true
		st.calls++
		for _, t := range c.Tools {
			if t.Name == call.Name {
				st.valid++
				break
			}
		}
		if i < len(p.Errors) && p.Errors[i] != CallUnknown {
			st.known++
			if p.Errors[i] == CallOK {
				st.success++
			}
		}
	}
	return st
}

func (st *futureCounts) add(o *futureCounts) {
	for k := range o.used {
		st.used[k] = true
	}
	for k := range o.required {
		st.required[k] = true
	}
	st.catalogued = st.catalogued || o.catalogued
	st.calls += o.calls
	st.valid += o.valid
	st.known += o.known
	st.success += o.success
}

// scores returns coverage, validity, call success and the weighted
// accuracy (NaN where not computable).
func (st *futureCounts) scores() (coverage, validity, success, accuracy float64) {
	coverage, validity, success, accuracy = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	var num, den float64
	if len(st.required) > 0 {
		hit := 0
		for k := range st.required {
			if st.used[k] {
				hit++
			}
		}
		coverage = float64(hit) / float64(len(st.required))
		num, den = num+0.4*coverage, den+0.4
	}
	if st.catalogued {
		validity = 1
		if st.calls > 0 {
			validity = float64(st.valid) / float64(st.calls)
		}
		num, den = num+0.3*validity, den+0.3
	}
	if st.known > 0 {
		success = float64(st.success) / float64(st.known)
		num, den = num+0.3*success, den+0.3
	}
	if den > 0 {
		accuracy = num / den
	}
	return
}

// Call outcomes a prediction may report (the futureagi profile's call
// success).
const (
	CallUnknown = iota // the call carries no error key
	CallOK             // "error": null
	CallFailed         // "error": "message"
)
