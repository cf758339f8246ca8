package review

import (
	"bytes"
	"sort"

	"github.com/goldtrace/goldtrace/score"
	"github.com/goldtrace/goldtrace/trace"
)

// Dispute kinds: how the labels of one item differ.
const (
	KindDecision = "decision" // call vs no call
	KindTool     = "tool"     // different tools at the same position
	KindArgs     = "args"     // same tool, different argument values
	KindCount    = "count"    // different numbers of calls
	KindOrder    = "order"    // the same calls in a different order
)

// Comparison is the outcome of comparing all labels of one item.
type Comparison struct {
	Agreed bool     `json:"agreed"`
	Kinds  []string `json:"kinds,omitempty"`
}

// Compare decides whether every label agrees with the first: same decision,
// same number of calls, same tools in the same order, equal argument values.
func Compare(labels []Label) Comparison {
	kinds := map[string]bool{}
	for _, l := range labels[1:] {
		for _, k := range pairKinds(labels[0], l) {
			kinds[k] = true
		}
	}
	if len(kinds) == 0 {
		return Comparison{Agreed: true}
	}
	out := Comparison{}
	for k := range kinds {
		out.Kinds = append(out.Kinds, k)
	}
	sort.Strings(out.Kinds)
	return out
}

func pairKinds(a, b Label) []string {
	if a.Decision != b.Decision {
		return []string{KindDecision}
	}
	if len(a.Calls) != len(b.Calls) {
		return []string{KindCount}
	}
	var kinds []string
	for i := range a.Calls {
		switch {
		case a.Calls[i].Tool != b.Calls[i].Tool:
			kinds = append(kinds, KindTool)
		case !argsEqual(a.Calls[i], b.Calls[i]):
			kinds = append(kinds, KindArgs)
		}
	}
	return kinds
}

func argsEqual(a, b LabelCall) bool {
	ca, errA := trace.Canonical(a.Args)
	cb, errB := trace.Canonical(b.Args)
	return errA == nil && errB == nil && bytes.Equal(ca, cb)
}

// AgreedGold is the gold answer of an item whose labels agree: the first
// label's calls with default (exact) argument rules.
func AgreedGold(labels []Label) Gold {
	sorted := append([]Label(nil), labels...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Reviewer < sorted[j].Reviewer })
	first := sorted[0]
	g := Gold{
		Item:         first.Item,
		Status:       GoldAgreed,
		Decision:     first.Decision,
		Calls:        ExpectedCalls(first.Calls),
		Acceptable:   [][]score.ExpectedCall{},
		Rationale:    first.Rationale,
		GuideVersion: first.GuideVersion,
	}
	for _, l := range sorted {
		g.Reviewers = append(g.Reviewers, l.Reviewer)
	}
	return g
}

// ExpectedCalls turns a label's calls into gold expected calls.
func ExpectedCalls(calls []LabelCall) []score.ExpectedCall {
	out := make([]score.ExpectedCall, len(calls))
	for i, c := range calls {
		out[i] = score.ExpectedCall{Tool: c.Tool, Args: c.Args}
	}
	return out
}
