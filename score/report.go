package score

import (
	"sort"
)

// ReportVersion is the version of the Report JSON layout (REPORT.md).
const ReportVersion = 1

// Report is the outcome of scoring a dataset. Its JSON form is stable and
// documented in REPORT.md; a saved report is a baseline for later runs.
type Report struct {
	Version     int    `json:"version"`
	Profile     string `json:"profile"`
	Gold        string `json:"gold"`
	Predictions string `json:"predictions"`

	Overall   Metrics   `json:"overall"`
	PerTool   []Group   `json:"per_tool"`
	Cohorts   []Cohort  `json:"cohorts"`
	Confusion Confusion `json:"confusion"`

	MissingPredictions []string     `json:"missing_predictions"`
	Gates              []GateResult `json:"gates"`
	// BaselineScopes counts the scopes compared with a baseline (only
	// regressions are listed in Gates).
	BaselineScopes int  `json:"baseline_scopes"`
	Passed         bool `json:"passed"`
	// Judge summarises the optional LLM judge (judge_fields.go).
	Judge *JudgeSummary `json:"judge,omitempty"`

	// Trajectories are the futureagi profile's per-trace scores (items of
	// one trace together), sorted by trace id; absent in other profiles.
	Trajectories []Trajectory `json:"trajectories,omitempty"`
	// ParamMode and Weights are the tutorial profile's settings.
	ParamMode string      `json:"param_mode,omitempty"`
	Weights   *[3]float64 `json:"weights,omitempty"`

	// Items stay last: the JSON writer streams them after the rest.
	Items []ItemResult `json:"items"`
}

// Trajectory is ToolSelectionAccuracy over the items of one trace: the
// tools used and required across them, every call's validity and outcome.
type Trajectory struct {
	Trace                 string   `json:"trace_id"`
	Items                 int      `json:"items"`
	Coverage              *float64 `json:"coverage"`
	Validity              *float64 `json:"validity"`
	CallSuccess           *float64 `json:"call_success"`
	ToolSelectionAccuracy *float64 `json:"tool_selection_accuracy"`
}

// Group is the metrics of the items sharing one expected first tool or one
// cohort value.
type Group struct {
	Name string `json:"name"`
	Metrics
}

// Cohort is the metrics per value of one metadata key ("meta.NAME"). Items
// without the key are grouped under "(unset)".
type Cohort struct {
	Key    string  `json:"key"`
	Groups []Group `json:"groups"`
}

// CohortUnset names the group of items that lack a cohort key.
const CohortUnset = "(unset)"

// Confusion is the expected × predicted first-tool matrix, stored sparsely.
type Confusion struct {
	// Labels are the classes: tool names sorted, then (none), then
	// (unknown) when present.
	Labels []string `json:"labels"`
	// Cells are the non-zero counts, sorted by expected then predicted label.
	Cells []Cell `json:"cells"`
}

// Cell is one non-zero count of the confusion matrix.
type Cell struct {
	Expected  string `json:"expected"`
	Predicted string `json:"predicted"`
	Count     int    `json:"count"`
}

// Options control Score.
type Options struct {
	Profile Profile
	// By lists metadata keys (without "meta.") to break metrics down by.
	By []string
}

// Aggregator accumulates item results into a Report, one item at a time.
type Aggregator struct {
	by      []string
	overall tally
	perTool map[string]*tally
	cohorts []map[string]*tally
	cells   map[[2]string]int
	items   []ItemResult
	missing []string
	profile Profile
	// futureagi: per trace, in first-seen order; invalid/catalogued calls
	traces              map[string]*futureCounts
	traceItems          map[string]int
	traceOrder          []string
	invalid, catalogued int
}

// NewAggregator returns an empty Aggregator.
func NewAggregator(opts Options) *Aggregator {
	if opts.Profile.Name == "" {
		opts.Profile = ProfileDefault
	}
	a := &Aggregator{
		by:      opts.By,
		perTool: map[string]*tally{},
		cells:   map[[2]string]int{},
		profile: opts.Profile,
	}
	for range opts.By {
		a.cohorts = append(a.cohorts, map[string]*tally{})
	}
	return a
}

// Add records one item's result; meta is the item's metadata.
func (a *Aggregator) Add(r ItemResult, meta map[string]string) {
	r.Pairs = nil
	a.overall.add(&r)
	t := a.perTool[r.ExpectedTool]
	if t == nil {
		t = &tally{}
		a.perTool[r.ExpectedTool] = t
	}
	t.add(&r)
	for i, key := range a.by {
		v, ok := meta[key]
		if !ok {
			v = CohortUnset
		}
		t := a.cohorts[i][v]
		if t == nil {
			t = &tally{}
			a.cohorts[i][v] = t
		}
		t.add(&r)
	}
	a.cells[[2]string{r.ExpectedTool, r.PredictedTool}]++
	if r.Missing {
		a.missing = append(a.missing, r.ID)
	}
	if fc := r.futureAGI; fc != nil {
		r.futureAGI = nil
		if fc.catalogued {
			a.catalogued += fc.calls
			a.invalid += fc.calls - fc.valid
		}
		if r.Trace != "" {
			if a.traces == nil {
				a.traces, a.traceItems = map[string]*futureCounts{}, map[string]int{}
			}
			t := a.traces[r.Trace]
			if t == nil {
				t = &futureCounts{used: map[string]bool{}, required: map[string]bool{}}
				a.traces[r.Trace] = t
				a.traceOrder = append(a.traceOrder, r.Trace)
			}
			t.add(fc)
			a.traceItems[r.Trace]++
		}
	}
	a.items = append(a.items, r)
}

// Grow reserves room for n more items.
func (a *Aggregator) Grow(n int) {
	if cap(a.items)-len(a.items) < n {
		items := make([]ItemResult, len(a.items), len(a.items)+n)
		copy(items, a.items)
		a.items = items
	}
}

// Report builds the report of everything added so far (gates not applied:
// Passed is true until ApplyGates or CompareBaseline finds a failure).
func (a *Aggregator) Report() *Report {
	lo, hi := seedRange(a.profile.seed)
	r := &Report{
		Version:            ReportVersion,
		Profile:            a.profile.Name,
		Overall:            a.overall.metrics(),
		PerTool:            groups(a.perTool, lo, hi),
		Confusion:          a.confusion(),
		MissingPredictions: a.missing,
		Gates:              []GateResult{},
		Passed:             true,
		Items:              a.items,
	}
	if r.MissingPredictions == nil {
		r.MissingPredictions = []string{}
	}
	if r.Items == nil {
		r.Items = []ItemResult{}
	}
	r.Cohorts = []Cohort{}
	for i, key := range a.by {
		r.Cohorts = append(r.Cohorts, Cohort{Key: "meta." + key, Groups: groups(a.cohorts[i], lo, hi)})
	}
	r.Overall.Seed = a.overall.seedRates(lo, hi)
	switch a.profile.seed {
	case seedTutorial:
		w := a.profile.weights
		r.ParamMode, r.Weights = a.profile.paramMode, &w
	case seedFutureAGI:
		r.Overall.Seed = append(r.Overall.Seed, SeedRate{Name: SeedInvalidToolRate, Value: ratio(float64(a.invalid), a.catalogued)})
		r.Trajectories = a.trajectories()
	}
	return r
}

// trajectories scores each trace's items together, sorted by trace id.
func (a *Aggregator) trajectories() []Trajectory {
	out := make([]Trajectory, 0, len(a.traceOrder))
	for _, id := range a.traceOrder {
		c, v, s, acc := a.traces[id].scores()
		out = append(out, Trajectory{Trace: id, Items: a.traceItems[id], Coverage: orNull(c), Validity: orNull(v), CallSuccess: orNull(s), ToolSelectionAccuracy: orNull(acc)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Trace < out[j].Trace })
	return out
}

// orNull is nil for NaN, else a pointer to v.
func orNull(v float64) *float64 {
	if v != v {
		return nil
	}
	return &v
}

func groups(m map[string]*tally, lo, hi int) []Group {
	out := make([]Group, 0, len(m))
	for name, t := range m {
		g := Group{Name: name, Metrics: t.metrics()}
		g.Seed = t.seedRates(lo, hi)
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return classLess(out[i].Name, out[j].Name) })
	return out
}

// classLess orders names alphabetically, then (none), (unknown), (unset).
func classLess(a, b string) bool {
	ra, rb := classRank(a), classRank(b)
	if ra != rb {
		return ra < rb
	}
	return a < b
}

func classRank(s string) int {
	switch s {
	case ClassNone:
		return 1
	case ClassUnknown:
		return 2
	case CohortUnset:
		return 3
	}
	return 0
}

func (a *Aggregator) confusion() Confusion {
	seen := map[string]bool{}
	c := Confusion{Labels: []string{}, Cells: make([]Cell, 0, len(a.cells))}
	for k, n := range a.cells {
		c.Cells = append(c.Cells, Cell{Expected: k[0], Predicted: k[1], Count: n})
		for _, l := range k {
			if !seen[l] {
				seen[l] = true
				c.Labels = append(c.Labels, l)
			}
		}
	}
	sort.Slice(c.Labels, func(i, j int) bool { return classLess(c.Labels[i], c.Labels[j]) })
	sort.Slice(c.Cells, func(i, j int) bool {
		x, y := c.Cells[i], c.Cells[j]
		if x.Expected != y.Expected {
			return classLess(x.Expected, y.Expected)
		}
		return classLess(x.Predicted, y.Predicted)
	})
	return c
}

// Score grades every case against the prediction at the same index.
func Score(cases []Case, preds []Prediction, opts Options) *Report {
	if opts.Profile.Name == "" {
		opts.Profile = ProfileDefault
	}
	s := NewScorer(opts.Profile)
	a := NewAggregator(opts)
	a.Grow(len(cases))
	for i := range cases {
		var p Prediction
		if i < len(preds) {
			p = preds[i]
		} else {
			p.Missing = true
		}
		a.Add(s.Item(&cases[i], p), cases[i].Meta)
	}
	return a.Report()
}
