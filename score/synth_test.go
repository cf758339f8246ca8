package score

import (
	"fmt"
	"sort"
	"testing"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
	"github.com/goldtrace/goldtrace/trace/synth"
)

// TestSynthMistakes scores generated traces whose deliberate mistakes are
// known: every decision point's error kind must name the mistake that was
// made, and every mistake-free one must be correct.
func TestSynthMistakes(t *testing.T) {
	want := map[synth.Mistake]ErrorKind{
		synth.MistakeNone:             "",
		synth.MistakeWrongTool:        KindWrongTool,
		synth.MistakeMissingArg:       KindMissingArg,
		synth.MistakeExtraArg:         KindUnexpectedArg,
		synth.MistakeWrongType:        KindWrongType,
		synth.MistakeWrongValue:       KindWrongValue,
		synth.MistakeHallucinatedTool: KindHallucinatedTool,
		synth.MistakeUnparseable:      KindUnparseableArgs,
		synth.MistakeMissedCall:       KindShouldCall,
		synth.MistakeUnneededCall:     KindShouldNotCall,
	}
	s := NewScorer(ProfileDefault)
	seen := map[synth.Mistake]int{}
	var wrong []string
	for _, c := range synth.GenerateCases(synth.Options{Seed: 42, N: 400}) {
		items := trace.Items(c.Trace)
		byTurn := map[int]trace.Item{}
		for _, it := range items {
			byTurn[it.Turn] = it
		}
		for _, e := range c.Expected {
			it := byTurn[e.Turn]
			sc := Case{ID: e.ItemID, Tools: it.Tools}
			for _, call := range e.Calls {
				ex := gold.ExpectedCall{Tool: call.Name, Args: call.Arguments}
				for arg, match := range e.ArgMatch {
					if ex.ArgRules == nil {
						ex.ArgRules = map[string]gold.ArgRule{}
					}
					ex.ArgRules[arg] = gold.ArgRule{Match: match}
				}
				sc.Expected = append(sc.Expected, ex)
			}
			r := s.Item(&sc, Prediction{Calls: it.Observed})
			seen[e.Mistake]++
			if r.Kind != want[e.Mistake] {
				wrong = append(wrong, fmt.Sprintf("%s mistake %q: got %q (%s)", e.ItemID, e.Mistake, r.Kind, r.Message))
			}
		}
	}
	sort.Strings(wrong)
	for i, w := range wrong {
		if i == 20 {
			t.Errorf("… %d more", len(wrong)-20)
			break
		}
		t.Error(w)
	}
	for m := range want {
		if m != synth.MistakeNone && seen[m] == 0 {
			t.Errorf("the generator made no %q mistake in 400 traces", m)
		}
	}
	t.Logf("decision points per mistake: %v", seen)
}
