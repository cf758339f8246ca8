package review

// The settle rule: once no assignment of an item is open, its labels (two
// or more) settle it, as agreed gold or as a dispute. The store applies
// the outcome inside the transaction that recorded the last label.

// Outcome is what the settle rule makes of one item.
type Outcome struct {
	// Settled is true when the labels were compared: no assignment is open
	// and at least two labels are in (skips may leave fewer).
	Settled    bool
	Comparison Comparison
	// Gold, when set, is the item's agreed gold answer: the item becomes
	// agreed. Otherwise a settled item is disputed for Dispute's reasons.
	Gold    *Gold
	Dispute Comparison
}

// Settle applies the rule to an item with open assignments still pending
// or in draft, and its submitted labels. With holdAgreed (the project
// reviews agreed items) labels that agree wait for a lead as a dispute of
// kind KindReview instead of becoming gold.
func Settle(open int, labels []Label, holdAgreed bool) Outcome {
	if open > 0 || len(labels) < 2 {
		return Outcome{}
	}
	cmp := Compare(labels)
	out := Outcome{Settled: true, Comparison: cmp}
	switch {
	case !cmp.Agreed:
		out.Dispute = cmp
	case holdAgreed:
		out.Dispute = Comparison{Kinds: []string{KindReview}}
	default:
		g := AgreedGold(labels)
		out.Gold = &g
	}
	return out
}
