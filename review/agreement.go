package review

import (
	"sort"
	"sync"

	"github.com/goldtrace/goldtrace/trace"
)

// ToolClass is the class a label gives its item for tool agreement: the first
// expected tool, or "(none)" when no tool should be called.
func ToolClass(l Label) string {
	if l.Decision != DecisionCall || len(l.Calls) == 0 {
		return trace.NoTool
	}
	return l.Calls[0].Tool
}

// Agreement summarises how reviewers agree over a set of items.
type Agreement struct {
	// Items is the number of items with two or more labels.
	Items int `json:"items"`
	// Exact is the share of reviewer pairs (over all items) whose labels
	// agree completely (Compare); nil without pairs.
	Exact *float64 `json:"exact"`
	// Tool is the share of reviewer pairs that chose the same tool class.
	Tool *float64 `json:"tool"`
	// Pairs: per reviewer pair, percent agreement and Cohen's kappa on the
	// tool class over the items both labeled.
	Pairs []PairAgreement `json:"pairs"`
	// Alpha is Krippendorff's alpha (nominal) on the tool class across all
	// reviewers, any number per item, missing labels allowed.
	Alpha Alpha `json:"alpha"`
	// Args is agreement on the first call's arguments among pairs that chose
	// the same (non-none) first tool.
	Args ArgsAgreement `json:"args"`
	// PerTool: for each tool class, how often a pair agreed on it when at
	// least one of the two chose it.
	PerTool []ToolAgreement `json:"per_tool"`
	// Reliability is Conger's kappa (Cohen's for two reviewers), Gwet's AC1
	// and Krippendorff's alpha on the tool class with bootstrap 95%
	// intervals, overall and per tool (DefaultBootstrap, or as
	// AgreeWithin was asked).
	Reliability Reliability `json:"reliability"`
	// ArgPaths is agreement per argument (JSON Pointer) given the same tool.
	ArgPaths []ArgPathAgreement `json:"arg_paths"`
	// Confusion lists the tool classes reviewers chose against each other
	// for the same item, most frequent first (A < B; the pair is unordered).
	Confusion []Confusion `json:"confusion"`
}

// PairAgreement is two reviewers' agreement over the items both labeled.
type PairAgreement struct {
	A     string `json:"a"`
	B     string `json:"b"`
	Items int    `json:"items"`
	// ExactAgreed counts items whose labels agree completely.
	ExactAgreed int   `json:"exact_agreed"`
	Kappa       Kappa `json:"kappa"` // on the tool class; Observed is percent agreement
}

// ArgsAgreement is agreement on arguments given the same tool.
type ArgsAgreement struct {
	Pairs   int      `json:"pairs"`
	Agreed  int      `json:"agreed"`
	Percent *float64 `json:"percent"`
	// PerTool: the same, per first tool.
	PerTool []ToolArgsAgreement `json:"per_tool"`
}

// ToolArgsAgreement is args agreement for one tool.
type ToolArgsAgreement struct {
	Tool   string `json:"tool"`
	Pairs  int    `json:"pairs"`
	Agreed int    `json:"agreed"`
}

// ToolAgreement is, for one tool class, the reviewer pairs where at least one
// chose it (Involved) and where both did (Agreed), and Cohen's kappa of the
// binary question "is it this tool?" over all reviewer pairs.
type ToolAgreement struct {
	Tool     string `json:"tool"`
	Involved int    `json:"involved"`
	Agreed   int    `json:"agreed"`
	// onlyA and onlyB count pairs where only the first (second) reviewer
	// chose the tool.
	onlyA, onlyB int
	Kappa        Kappa `json:"kappa"`
}

// Confusion counts reviewer pairs where one chose tool class A and the other B.
type Confusion struct {
	A     string `json:"a"`
	B     string `json:"b"`
	Count int    `json:"count"`
}

// Agree computes the agreement statistics of items, each given as the list of
// its submitted labels (one per reviewer). Items with fewer than two labels
// only contribute nothing; reviewers who did not label an item are missing
// data for alpha and are left out of that item's pairs.
//
// The intervals are DefaultBootstrap's (the manifest's); AgreeWithin
// chooses another bootstrap.
func Agree(items [][]Label) Agreement { return AgreeWithin(items, DefaultBootstrap) }

// AgreeWithin is Agree with the reliability intervals drawn as boot says
// (LiveBootstrap for status and the dashboard).
//
// It is long because every statistic is accumulated in one pass over the
// items' label pairs; split, each part would walk the pairs again.
func AgreeWithin(items [][]Label, boot Bootstrap) Agreement {
	type pairKey struct{ a, b string }
	// pairTally is one reviewer pair's tool classes, item by item, and how
	// many of those items they agree on exactly.
	type pairTally struct {
		a, b  []string
		exact int
	}
	// The reliability statistics (a bootstrap) and the argument paths read
	// only items: they run beside the pair tallies, on another core when
	// there is one.
	var reliability Reliability
	var argPaths []ArgPathAgreement
	var side sync.WaitGroup
	side.Add(2)
	go func() {
		defer side.Done()
		reliability = Reliable(ToolRatings(items), boot)
	}()
	go func() {
		defer side.Done()
		argPaths = ArgPaths(items)
	}()
	pairs := map[pairKey]*pairTally{}
	var lastKey pairKey // the pair of the previous item, usually the same
	var last *pairTally
	// One block holds every unit's tool classes: no slice per item.
	n, m := 0, 0
	for _, labels := range items {
		if len(labels) >= 2 {
			n += len(labels)
			m++
		}
	}
	block := make([]string, 0, n)
	units := make([][]string, 0, m)
	var out Agreement
	var pairsTotal, exactTotal, toolTotal int
	argsByTool := map[string]*ToolArgsAgreement{}
	perTool := map[string]*ToolAgreement{}
	confusion := map[pairKey]int{}
	tool := func(name string) *ToolAgreement {
		t := perTool[name]
		if t == nil {
			t = &ToolAgreement{Tool: name}
			perTool[name] = t
		}
		return t
	}
	for _, labels := range items {
		if len(labels) < 2 {
			continue
		}
		out.Items++
		ls := labels
		if !sortedByReviewer(ls) {
			ls = append([]Label(nil), labels...)
			sort.Slice(ls, func(i, j int) bool { return ls[i].Reviewer < ls[j].Reviewer })
		}
		start := len(block)
		for _, l := range ls {
			block = append(block, ToolClass(l))
		}
		unit := block[start:len(block):len(block)]
		units = append(units, unit)
		for i := 0; i < len(ls); i++ {
			for j := i + 1; j < len(ls); j++ {
				k := pairKey{ls[i].Reviewer, ls[j].Reviewer}
				if last == nil || k != lastKey {
					last = pairs[k]
					if last == nil {
						last = &pairTally{}
						pairs[k] = last
					}
					lastKey = k
				}
				ci, cj := unit[i], unit[j]
				last.a = append(last.a, ci)
				last.b = append(last.b, cj)
				pairsTotal++
				// Compare the first calls' arguments once: they decide the
				// args agreement and, with the rest, exact agreement.
				argsEq := true
				if ci == cj && ci != trace.NoTool {
					argsEq = ArgsEqual(ls[i].Calls[0].Args, ls[j].Calls[0].Args)
				}
				same := ci == cj && argsEq && agreeGivenFirst(ls[i], ls[j])
				if same {
					last.exact++
					exactTotal++
				}
				if ci == cj {
					toolTotal++
					tool(ci).Involved++
					tool(ci).Agreed++
					if ci != trace.NoTool {
						ta := argsByTool[ci]
						if ta == nil {
							ta = &ToolArgsAgreement{Tool: ci}
							argsByTool[ci] = ta
						}
						ta.Pairs++
						if argsEq {
							ta.Agreed++
						}
					}
					continue
				}
				tool(ci).Involved++
				tool(ci).onlyA++
				tool(cj).Involved++
				tool(cj).onlyB++
				lo, hi := min(ci, cj), max(ci, cj)
				confusion[pairKey{lo, hi}]++
			}
		}
	}
	for k, p := range pairs {
		out.Pairs = append(out.Pairs, PairAgreement{A: k.a, B: k.b, Items: len(p.a), ExactAgreed: p.exact, Kappa: CohenKappa(p.a, p.b)})
	}
	sort.Slice(out.Pairs, func(i, j int) bool {
		if out.Pairs[i].A != out.Pairs[j].A {
			return out.Pairs[i].A < out.Pairs[j].A
		}
		return out.Pairs[i].B < out.Pairs[j].B
	})
	out.Exact = ratio(exactTotal, pairsTotal)
	out.Tool = ratio(toolTotal, pairsTotal)
	out.Alpha = KrippendorffNominal(units)
	for _, ta := range argsByTool {
		out.Args.Pairs += ta.Pairs
		out.Args.Agreed += ta.Agreed
		out.Args.PerTool = append(out.Args.PerTool, *ta)
	}
	sort.Slice(out.Args.PerTool, func(i, j int) bool { return out.Args.PerTool[i].Tool < out.Args.PerTool[j].Tool })
	out.Args.Percent = ratio(out.Args.Agreed, out.Args.Pairs)
	for _, t := range perTool {
		t.Kappa = BinaryKappa(t.Agreed, t.onlyA, t.onlyB, pairsTotal-t.Agreed-t.onlyA-t.onlyB)
		out.PerTool = append(out.PerTool, *t)
	}
	sort.Slice(out.PerTool, func(i, j int) bool { return out.PerTool[i].Tool < out.PerTool[j].Tool })
	for k, n := range confusion {
		out.Confusion = append(out.Confusion, Confusion{A: k.a, B: k.b, Count: n})
	}
	sort.Slice(out.Confusion, func(i, j int) bool {
		x, y := out.Confusion[i], out.Confusion[j]
		if x.Count != y.Count {
			return x.Count > y.Count
		}
		if x.A != y.A {
			return x.A < y.A
		}
		return x.B < y.B
	})
	side.Wait()
	out.Reliability, out.ArgPaths = reliability, argPaths
	nonNilSlices(&out)
	return out
}

func sortedByReviewer(ls []Label) bool {
	for i := 1; i < len(ls); i++ {
		if ls[i].Reviewer < ls[i-1].Reviewer {
			return false
		}
	}
	return true
}

// agreeGivenFirst reports whether two labels agree completely, given that
// their tool classes and first calls' arguments are already known equal.
func agreeGivenFirst(a, b Label) bool {
	if a.Decision != b.Decision {
		return false
	}
	if a.Decision == DecisionNoCall || len(a.Calls) == 0 {
		return a.Decision == DecisionNoCall || len(b.Calls) == 0
	}
	return len(a.Calls) == len(b.Calls) && CallsEqual(a.Calls[1:], b.Calls[1:])
}

func nonNilSlices(a *Agreement) {
	if a.Pairs == nil {
		a.Pairs = []PairAgreement{}
	}
	if a.PerTool == nil {
		a.PerTool = []ToolAgreement{}
	}
	if a.Confusion == nil {
		a.Confusion = []Confusion{}
	}
	if a.Reliability.PerTool == nil {
		a.Reliability.PerTool = []ToolReliability{}
	}
	if a.ArgPaths == nil {
		a.ArgPaths = []ArgPathAgreement{}
	}
	if a.Args.PerTool == nil {
		a.Args.PerTool = []ToolArgsAgreement{}
	}
}

// ratio is num/den, or nil when den is 0.
func ratio(num, den int) *float64 {
	if den == 0 {
		return nil
	}
	v := float64(num) / float64(den)
	return &v
}
