package review

import (
	"sort"
	"strings"

	"github.com/goldtrace/goldtrace/gold"
)

// Dispute kinds: how the labels of one item differ.
const (
	KindDecision = "decision" // call vs no call
	KindTool     = "tool"     // different tools (at the same position, or a different set of tools)
	KindArgs     = "args"     // same tool, different argument values
	KindCount    = "count"    // different numbers of calls
	KindOrder    = "order"    // the same calls (or tools) in a different order
	// KindReview marks an item whose labels agree but that waits for a lead
	// because the project reviews agreed items (store setting review_agreed).
	KindReview = "review"
)

// Comparison is the outcome of comparing all labels of one item.
type Comparison struct {
	Agreed bool     `json:"agreed"`
	Kinds  []string `json:"kinds,omitempty"`
	// Pairs says, for every pair of reviewers that disagree, how.
	Pairs []PairDiff `json:"pairs,omitempty"`
}

// PairDiff is how two reviewers' labels of one item differ. It is stored as
// the dispute detail (disputes.detail) for the lead.
type PairDiff struct {
	A     string   `json:"a"`
	B     string   `json:"b"`
	Kinds []string `json:"kinds"`
	// Args lists, per pair of calls to the same tool, the argument keys whose
	// values differ.
	Args []ArgsDiff `json:"args,omitempty"`
	// CallsA and CallsB are the numbers of calls when they differ.
	CallsA int `json:"calls_a,omitempty"`
	CallsB int `json:"calls_b,omitempty"`
}

// ArgsDiff names the differing argument keys of one pair of calls to Tool at
// positions PosA (in A's label) and PosB (in B's).
type ArgsDiff struct {
	Tool string   `json:"tool"`
	PosA int      `json:"pos_a"`
	PosB int      `json:"pos_b"`
	Keys []string `json:"keys"`
}

// Compare decides whether all labels of an item agree — every pair has the
// same decision and call lists that pair exactly (same tools in the same
// order, equal argument values) — and, when they do not, which dispute kinds
// separate them. Every pair of labels is compared, so with three reviewers a
// disagreement between the second and third is found too. Labels with the
// no_call decision agree whatever calls they carry.
func Compare(labels []Label) Comparison {
	kinds := map[string]bool{}
	var pairs []PairDiff
	for i := 0; i < len(labels); i++ {
		for j := i + 1; j < len(labels); j++ {
			d, same := ComparePair(labels[i], labels[j])
			if same {
				continue
			}
			pairs = append(pairs, d)
			for _, k := range d.Kinds {
				kinds[k] = true
			}
		}
	}
	if len(pairs) == 0 {
		return Comparison{Agreed: true}
	}
	return Comparison{Kinds: sortedKeys(kinds), Pairs: pairs}
}

// ComparePair compares two labels; same is true when they agree.
func ComparePair(a, b Label) (d PairDiff, same bool) {
	d = PairDiff{A: a.Reviewer, B: b.Reviewer}
	if a.Decision != b.Decision {
		d.Kinds = []string{KindDecision}
		return d, false
	}
	if a.Decision == DecisionNoCall || CallsEqual(a.Calls, b.Calls) {
		return PairDiff{}, true
	}
	kinds := map[string]bool{}
	if len(a.Calls) != len(b.Calls) {
		kinds[KindCount] = true
		d.CallsA, d.CallsB = len(a.Calls), len(b.Calls)
	}
	pairs := pairCalls(a.Calls, b.Calls)
	if reordered(pairs) {
		kinds[KindOrder] = true
	}
	for _, p := range pairs {
		if keys := DifferingKeys(a.Calls[p.a].Args, b.Calls[p.b].Args); len(keys) > 0 {
			kinds[KindArgs] = true
			d.Args = append(d.Args, ArgsDiff{Tool: a.Calls[p.a].Tool, PosA: p.a, PosB: p.b, Keys: keys})
		}
	}
	if !sameToolMultiset(a.Calls, b.Calls) && !kinds[KindCount] || toolsDifferBeyondCount(a.Calls, b.Calls) {
		kinds[KindTool] = true
	}
	d.Kinds = sortedKeys(kinds)
	return d, false
}

type callPair struct{ a, b int }

// pairCalls pairs calls to the same tool: first every exactly equal pair in
// order (so a reordering with unchanged arguments is a pure order
// difference), then the remaining calls to the same tool by occurrence.
func pairCalls(a, b []LabelCall) []callPair {
	usedA := make([]bool, len(a))
	usedB := make([]bool, len(b))
	var out []callPair
	for i := range a {
		for j := range b {
			if !usedB[j] && a[i].Tool == b[j].Tool && ArgsEqual(a[i].Args, b[j].Args) {
				usedA[i], usedB[j] = true, true
				out = append(out, callPair{i, j})
				break
			}
		}
	}
	for i := range a {
		if usedA[i] {
			continue
		}
		for j := range b {
			if !usedB[j] && a[i].Tool == b[j].Tool {
				usedA[i], usedB[j] = true, true
				out = append(out, callPair{i, j})
				break
			}
		}
	}
	sort.Slice(out, func(x, y int) bool { return out[x].a < out[y].a })
	return out
}

// reordered is true when paired calls (sorted by their position in A) are
// not in increasing position in B. Unpaired calls (a count difference) do
// not count as a reordering.
func reordered(pairs []callPair) bool {
	for k := 1; k < len(pairs); k++ {
		if pairs[k].b < pairs[k-1].b {
			return true
		}
	}
	return false
}

func toolMultiset(calls []LabelCall) map[string]int {
	m := map[string]int{}
	for _, c := range calls {
		m[c.Tool]++
	}
	return m
}

func sameToolMultiset(a, b []LabelCall) bool {
	ma, mb := toolMultiset(a), toolMultiset(b)
	if len(ma) != len(mb) {
		return false
	}
	for k, n := range ma {
		if mb[k] != n {
			return false
		}
	}
	return true
}

// toolsDifferBeyondCount is true when a tool appears in one list and not at
// all in the other: more than an extra or missing call to a shared tool.
func toolsDifferBeyondCount(a, b []LabelCall) bool {
	ma, mb := toolMultiset(a), toolMultiset(b)
	for k := range ma {
		if mb[k] == 0 {
			return true
		}
	}
	for k := range mb {
		if ma[k] == 0 {
			return true
		}
	}
	return false
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// AgreedGold is the gold answer of an item whose labels agree: the calls of
// the first reviewer by name, with default (exact) argument rules.
//
// The gold rationale is the first reviewer's (by name) non-empty rationale;
// every other reviewer's rationale that says something different is kept
// after it, each on its own paragraph as "name: text", so no reviewer's
// reasoning is lost from the dataset.
func AgreedGold(labels []Label) Gold {
	sorted := append([]Label(nil), labels...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Reviewer < sorted[j].Reviewer })
	first := sorted[0]
	g := Gold{
		Item:         first.Item,
		Status:       GoldAgreed,
		Decision:     first.Decision,
		Calls:        GoldCalls(first),
		Acceptable:   NoAcceptable(),
		Rationale:    JoinRationales(sorted),
		GuideVersion: first.GuideVersion,
	}
	for _, l := range sorted {
		g.Reviewers = append(g.Reviewers, l.Reviewer)
	}
	return g
}

// JoinRationales composes one rationale from several labels (in the order
// given): the first non-empty one as is, then each different one as
// "reviewer: text" on its own paragraph.
func JoinRationales(labels []Label) string {
	var parts []string
	seen := map[string]bool{}
	for _, l := range labels {
		r := strings.TrimSpace(l.Rationale)
		if r == "" || seen[r] {
			continue
		}
		seen[r] = true
		if len(parts) == 0 {
			parts = append(parts, r)
			continue
		}
		parts = append(parts, l.Reviewer+": "+r)
	}
	return strings.Join(parts, "\n\n")
}

// GoldCalls are a label's calls as gold expected calls: none ([]) when the
// label says no tool should be called.
func GoldCalls(l Label) []gold.ExpectedCall {
	if l.Decision == DecisionNoCall {
		return []gold.ExpectedCall{}
	}
	return ExpectedCalls(l.Calls)
}

// NoAcceptable is an empty list of acceptable alternatives (JSON []).
func NoAcceptable() [][]gold.ExpectedCall { return [][]gold.ExpectedCall{} }

// ExpectedCalls turns a label's calls into gold expected calls.
func ExpectedCalls(calls []LabelCall) []gold.ExpectedCall {
	out := make([]gold.ExpectedCall, len(calls))
	for i, c := range calls {
		out[i] = gold.ExpectedCall{Tool: c.Tool, Args: c.Args}
	}
	return out
}
