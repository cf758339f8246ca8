package score

import (
	"fmt"
	"strconv"
	"strings"
)

// Gate is one threshold a report must meet: overall, or for every tool with
// enough support.
type Gate struct {
	Metric  string
	PerTool bool
	Max     bool // an upper bound (for hallucinated_tool_rate, unparseable_rate)
	Limit   float64
}

// ParseGate reads "METRIC=VALUE" or "per_tool.METRIC=VALUE". max says the
// value is an upper bound (--max) rather than a lower one (--min).
func ParseGate(spec string, max bool) (Gate, error) {
	name, val, ok := strings.Cut(spec, "=")
	if !ok {
		return Gate{}, fmt.Errorf("gate %q: want METRIC=VALUE", spec)
	}
	g := Gate{Max: max}
	name = strings.TrimSpace(name)
	if rest, ok := strings.CutPrefix(name, "per_tool."); ok {
		g.PerTool, name = true, rest
	}
	if err := checkJudgeGate(spec, name, g.PerTool); err != nil {
		return Gate{}, err
	}
	if !KnownRate(name) && name != JudgeScore {
		return Gate{}, fmt.Errorf("gate %q: unknown metric %q (one of %s)", spec, name, strings.Join(RateNames, ", "))
	}
	g.Metric = name
	v, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
	if err != nil || v < 0 || v > 1 {
		return Gate{}, fmt.Errorf("gate %q: value must be a number between 0 and 1", spec)
	}
	g.Limit = v
	if !max && LowerIsBetter(name) {
		return Gate{}, fmt.Errorf("gate %q: %s is better when lower; use --max", spec, name)
	}
	if max && !LowerIsBetter(name) {
		return Gate{}, fmt.Errorf("gate %q: %s is better when higher; use --min", spec, name)
	}
	return g, nil
}

func (g Gate) String() string {
	op := ">="
	if g.Max {
		op = "<="
	}
	scope := ""
	if g.PerTool {
		scope = "per_tool."
	}
	return fmt.Sprintf("%s%s %s %g", scope, g.Metric, op, g.Limit)
}

// GateResult is one check of a gate or of the baseline in one scope.
type GateResult struct {
	Check  string   `json:"check"` // e.g. "exact_call >= 0.9" or "baseline exact_call drop <= 0.02"
	Scope  string   `json:"scope"` // "overall", "tool NAME", "meta.KEY=VALUE"
	Value  *float64 `json:"value"` // null: not applicable (no items for the metric)
	Limit  float64  `json:"limit"`
	Passed bool     `json:"passed"`
	// Baseline is the baseline's value, for baseline checks.
	Baseline *float64 `json:"baseline,omitempty"`
}

// ApplyGates checks each gate; per-tool gates apply to every tool with at
// least minSupport items. A metric with no data (null) passes and is shown
// as n/a.
func (r *Report) ApplyGates(gates []Gate, minSupport int) {
	for _, g := range gates {
		if g.Metric == JudgeScore {
			r.checkJudge(g)
			continue
		}
		if !g.PerTool {
			r.check(g, "overall", &r.Overall)
			continue
		}
		for i := range r.PerTool {
			if r.PerTool[i].Items >= minSupport {
				r.check(g, "tool "+r.PerTool[i].Name, &r.PerTool[i].Metrics)
			}
		}
	}
}

func (r *Report) check(g Gate, scope string, m *Metrics) {
	p, _ := m.rate(g.Metric)
	res := GateResult{Check: g.String(), Scope: scope, Value: p, Limit: g.Limit, Passed: true}
	if p != nil {
		const eps = 1e-12
		if g.Max {
			res.Passed = *p <= g.Limit+eps
		} else {
			res.Passed = *p >= g.Limit-eps
		}
	}
	r.record(res)
}

func (r *Report) record(res GateResult) {
	r.Gates = append(r.Gates, res)
	if !res.Passed {
		r.Passed = false
	}
}

// CompareBaseline fails the report where any rate dropped by more than
// maxDrop against base: overall, per tool and per cohort value present in
// both reports with at least minSupport items now. For rates where lower is
// better, a rise is the drop.
func (r *Report) CompareBaseline(base *Report, maxDrop float64, minSupport int) {
	r.compareMetrics("overall", &r.Overall, &base.Overall, maxDrop)
	baseTools := map[string]*Metrics{}
	for i := range base.PerTool {
		baseTools[base.PerTool[i].Name] = &base.PerTool[i].Metrics
	}
	for i := range r.PerTool {
		if b := baseTools[r.PerTool[i].Name]; b != nil && r.PerTool[i].Items >= minSupport {
			r.compareMetrics("tool "+r.PerTool[i].Name, &r.PerTool[i].Metrics, b, maxDrop)
		}
	}
	baseCohorts := map[string]*Metrics{}
	for ci := range base.Cohorts {
		for gi := range base.Cohorts[ci].Groups {
			g := &base.Cohorts[ci].Groups[gi]
			baseCohorts[base.Cohorts[ci].Key+"="+g.Name] = &g.Metrics
		}
	}
	for ci := range r.Cohorts {
		for gi := range r.Cohorts[ci].Groups {
			g := &r.Cohorts[ci].Groups[gi]
			scope := r.Cohorts[ci].Key + "=" + g.Name
			if b := baseCohorts[scope]; b != nil && g.Items >= minSupport {
				r.compareMetrics(scope, &g.Metrics, b, maxDrop)
			}
		}
	}
}

func (r *Report) compareMetrics(scope string, cur, base *Metrics, maxDrop float64) {
	for _, name := range RateNames {
		c, okC := cur.Value(name)
		b, okB := base.Value(name)
		if !okC || !okB {
			continue
		}
		drop := b - c
		check := fmt.Sprintf("baseline %s drop <= %g", name, maxDrop)
		if LowerIsBetter(name) {
			drop = c - b
			check = fmt.Sprintf("baseline %s rise <= %g", name, maxDrop)
		}
		res := GateResult{Check: check, Scope: scope, Value: &c, Limit: maxDrop, Baseline: &b, Passed: drop <= maxDrop+1e-12}
		if res.Passed {
			continue // only regressions are recorded; passing comparisons are counted
		}
		r.record(res)
	}
	r.BaselineScopes++
}
