package synth

import (
	"bytes"
	"testing"
)

func TestSimulatedReviewersMostlyAgree(t *testing.T) {
	var total, agree, truthA int
	for _, c := range GenerateCases(Options{Seed: 21, N: 600}) {
		for _, e := range c.Expected {
			a := SimulatedLabel(e, "alice", 1)
			b := SimulatedLabel(e, "bob", 1)
			again := SimulatedLabel(e, "alice", 1)
			if !sameAnswer(a, again) {
				t.Fatalf("%s: alice answers differently the second time", e.ItemID)
			}
			if a.ItemID != e.ItemID || a.Reviewer != "alice" || a.Rationale == "" {
				t.Fatalf("%s: answer %+v", e.ItemID, a)
			}
			if a.NoCall != (len(a.Calls) == 0) {
				t.Fatalf("%s: NoCall %v with %d calls", e.ItemID, a.NoCall, len(a.Calls))
			}
			total++
			if sameAnswer(a, b) {
				agree++
			}
			if a.NoCall == e.NoCall && sameCalls(a.Calls, e.Calls) {
				truthA++
			}
		}
	}
	agreement := float64(agree) / float64(total)
	if agreement < 0.70 || agreement > 0.90 {
		t.Errorf("alice and bob agree on %.3f of %d points, want 0.70–0.90", agreement, total)
	}
	if acc := float64(truthA) / float64(total); acc < 0.82 || acc > 0.94 {
		t.Errorf("alice matches the truth on %.3f, want about %.2f", acc, 1-ReviewerDisagreeRate)
	}
}

func sameAnswer(a, b Answer) bool {
	if a.NoCall != b.NoCall || len(a.Calls) != len(b.Calls) {
		return false
	}
	for i := range a.Calls {
		if a.Calls[i].Name != b.Calls[i].Name || !bytes.Equal(a.Calls[i].Arguments, b.Calls[i].Arguments) {
			return false
		}
	}
	return true
}
