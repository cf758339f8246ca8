package score

import (
	"fmt"
	"slices"
)

// tally accumulates item results; Metrics are computed from it.
type tally struct {
	items, correct             int
	toolName                   int
	callItems                  int // items whose chosen gold list has calls
	argsShape, argsValue       int
	sequence                   float64
	noCallItems, noCallCorrect int
	expected, predicted        int
	emitted, matched           int
	catalogCalls               int
	hallucinated, unparseable  int
	spurious, missed           int
	kinds                      [11]int // by ErrorKinds index
	seedSum                    SeedScores
	seedN                      [len(seedNames)]int
}

func (t *tally) add(r *ItemResult) {
	t.items++
	if r.Correct {
		t.correct++
	}
	if r.ToolName {
		t.toolName++
	}
	if r.ExpectedCalls > 0 {
		t.callItems++
		if r.ArgsShape {
			t.argsShape++
		}
		if r.ArgsValue {
			t.argsValue++
		}
		t.sequence += r.Sequence
	} else {
		t.noCallItems++
		if r.Correct {
			t.noCallCorrect++
		}
	}
	t.expected += r.ExpectedCalls
	t.predicted += r.PredictedCalls
	t.emitted += r.EmittedCalls
	t.catalogCalls += r.CatalogCalls
	t.matched += r.MatchedCalls
	t.hallucinated += r.Hallucinated
	t.unparseable += r.Unparseable
	t.spurious += r.Spurious
	t.missed += r.Missed
	if r.Kind != "" {
		t.kinds[r.Kind.rank()]++
	}
	if r.Seed == nil {
		return
	}
	for i, v := range r.Seed {
		if v == v { // not NaN
			t.seedSum[i] += v
			t.seedN[i]++
		}
	}
}

// Metrics are the aggregate scores of a set of items. Rates are null in JSON
// when their denominator is zero (e.g. no_tool_accuracy with no no-call
// items). See REPORT.md for each definition.
type Metrics struct {
	Items   int `json:"items"`
	Correct int `json:"correct"`

	ExactCall            *float64 `json:"exact_call"`
	ToolName             *float64 `json:"tool_name"`
	ArgsShape            *float64 `json:"args_shape"`
	ArgsValue            *float64 `json:"args_value"`
	Sequence             *float64 `json:"sequence"`
	Precision            *float64 `json:"precision"`
	Recall               *float64 `json:"recall"`
	F1                   *float64 `json:"f1"`
	NoToolAccuracy       *float64 `json:"no_tool_accuracy"`
	HallucinatedToolRate *float64 `json:"hallucinated_tool_rate"`
	UnparseableRate      *float64 `json:"unparseable_rate"`

	CallItems      int               `json:"call_items"`
	NoCallItems    int               `json:"no_call_items"`
	ExpectedCalls  int               `json:"expected_calls"`
	PredictedCalls int               `json:"predicted_calls"`
	CatalogCalls   int               `json:"catalog_calls"` // predicted calls on items that list available tools
	MatchedCalls   int               `json:"matched_calls"`
	SpuriousCalls  int               `json:"spurious_calls"`
	MissedCalls    int               `json:"missed_calls"`
	ErrorKinds     map[ErrorKind]int `json:"error_kinds"`

	// Seed are the seed profile's rates (the mean of each per-item number
	// over the items where it is defined), written at the top level of the
	// metrics object under their names.
	Seed []SeedRate `json:"-"`
}

// SeedRate is one seed profile rate; Value is nil when no item defines it.
type SeedRate struct {
	Name  string
	Value *float64
}

// RateNames are the metrics that gates and baselines compare, in report
// order.
var RateNames = []string{
	"exact_call", "tool_name", "args_shape", "args_value", "sequence",
	"precision", "recall", "f1", "no_tool_accuracy",
	"hallucinated_tool_rate", "unparseable_rate",
}

// LowerIsBetter reports whether a smaller value of the metric is better.
func LowerIsBetter(metric string) bool {
	return metric == "hallucinated_tool_rate" || metric == "unparseable_rate" || metric == SeedInvalidToolRate
}

// Value returns the named rate, ok=false when it is undefined or unknown.
func (m *Metrics) Value(name string) (float64, bool) {
	p, known := m.rate(name)
	if !known || p == nil {
		return 0, false
	}
	return *p, true
}

// KnownRate reports whether name is a metric Value understands (in any
// profile).
func KnownRate(name string) bool {
	var m Metrics
	_, known := m.rate(name)
	return known || name == SeedInvalidToolRate || slices.Contains(seedNames[:], name)
}

func (m *Metrics) rate(name string) (*float64, bool) {
	switch name {
	case "exact_call":
		return m.ExactCall, true
	case "tool_name":
		return m.ToolName, true
	case "args_shape":
		return m.ArgsShape, true
	case "args_value":
		return m.ArgsValue, true
	case "sequence":
		return m.Sequence, true
	case "precision":
		return m.Precision, true
	case "recall":
		return m.Recall, true
	case "f1":
		return m.F1, true
	case "no_tool_accuracy":
		return m.NoToolAccuracy, true
	case "hallucinated_tool_rate":
		return m.HallucinatedToolRate, true
	case "unparseable_rate":
		return m.UnparseableRate, true
	}
	for _, sr := range m.Seed {
		if sr.Name == name {
			return sr.Value, true
		}
	}
	return nil, false
}

func ratio(num float64, den int) *float64 {
	if den == 0 {
		return nil
	}
	v := num / float64(den)
	return &v
}

// seedRates are the means of the seed numbers lo..hi.
func (t *tally) seedRates(lo, hi int) []SeedRate {
	var out []SeedRate
	for i := lo; i < hi; i++ {
		out = append(out, SeedRate{Name: seedNames[i], Value: ratio(t.seedSum[i], t.seedN[i])})
	}
	return out
}

func (t *tally) metrics() Metrics {
	m := Metrics{
		Items:          t.items,
		Correct:        t.correct,
		ExactCall:      ratio(float64(t.correct), t.items),
		ToolName:       ratio(float64(t.toolName), t.items),
		ArgsShape:      ratio(float64(t.argsShape), t.callItems),
		ArgsValue:      ratio(float64(t.argsValue), t.callItems),
		Sequence:       ratio(t.sequence, t.callItems),
		Precision:      ratio(float64(t.matched), t.predicted),
		Recall:         ratio(float64(t.matched), t.expected),
		NoToolAccuracy: ratio(float64(t.noCallCorrect), t.noCallItems),
		// Both rates are over the calls the model emitted; hallucination
		// only over those on items that list their available tools.
		HallucinatedToolRate: ratio(float64(t.hallucinated), t.catalogCalls),
		UnparseableRate:      ratio(float64(t.unparseable), t.emitted),
		CallItems:            t.callItems,
		NoCallItems:          t.noCallItems,
		ExpectedCalls:        t.expected,
		PredictedCalls:       t.emitted,
		CatalogCalls:         t.catalogCalls,
		MatchedCalls:         t.matched,
		SpuriousCalls:        t.spurious,
		MissedCalls:          t.missed,
		ErrorKinds:           map[ErrorKind]int{},
	}
	if m.Precision != nil && m.Recall != nil {
		f := 0.0
		if *m.Precision+*m.Recall > 0 {
			f = 2 * *m.Precision * *m.Recall / (*m.Precision + *m.Recall)
		}
		m.F1 = &f
	}
	for i, n := range t.kinds {
		if n > 0 {
			m.ErrorKinds[ErrorKinds[i]] = n
		}
	}
	return m
}

// FormatRate prints a rate with four decimals, or "n/a".
func FormatRate(p *float64) string {
	if p == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.4f", *p)
}
