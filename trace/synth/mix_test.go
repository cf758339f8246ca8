package synth

import (
	"testing"
)

// TestMixProportions holds the share of each kind of decision point in a
// realistic range over 2000 traces, so tests, demo and benchmarks downstream
// see every mistake kind and plenty of correct and no-call turns.
func TestMixProportions(t *testing.T) {
	cases := GenerateCases(Options{Seed: 11, N: 2000})
	var points, noCall, parallel, unparseable int
	mistakes := map[Mistake]int{}
	cohorts, models, prompts := map[string]int{}, map[string]int{}, map[string]int{}
	var multiStep int
	for _, c := range cases {
		cohorts[c.Trace.Metadata["cohort"]]++
		models[c.Trace.Metadata["model"]]++
		prompts[c.Trace.Metadata["prompt_version"]]++
		calls := 0
		for _, e := range c.Expected {
			points++
			mistakes[e.Mistake]++
			if e.NoCall {
				noCall++
			} else {
				calls++
			}
			if len(e.Calls) > 1 {
				parallel++
			}
		}
		if calls > 1 {
			multiStep++
		}
		for _, m := range c.Trace.Messages {
			for _, call := range m.ToolCalls {
				if call.Unparseable {
					unparseable++
				}
			}
		}
	}
	share := func(n int) float64 { return float64(n) / float64(points) }
	checks := []struct {
		what     string
		got      float64
		min, max float64
	}{
		{"decision points per trace", float64(points) / float64(len(cases)), 2, 4.5},
		{"no-call truth", share(noCall), 0.45, 0.70},
		{"correct", share(mistakes[MistakeNone]), 0.80, 0.95},
		{"parallel calls", share(parallel), 0.01, 0.10},
		{"traces with several call points", float64(multiStep) / float64(len(cases)), 0.10, 0.60},
	}
	for _, m := range MistakeKinds() {
		checks = append(checks, struct {
			what     string
			got      float64
			min, max float64
		}{string(m), share(mistakes[m]), 0.002, 0.04})
	}
	for _, c := range checks {
		if c.got < c.min || c.got > c.max {
			t.Errorf("%s: %.3f, want in [%.3f, %.3f]", c.what, c.got, c.min, c.max)
		}
	}
	if unparseable != mistakes[MistakeUnparseable] {
		t.Errorf("%d unparseable calls for %d unparseable mistakes", unparseable, mistakes[MistakeUnparseable])
	}
	for name, m := range map[string]map[string]int{"cohort": cohorts, "model": models, "prompt_version": prompts} {
		if len(m) < 2 {
			t.Errorf("only %d values of %s: %v", len(m), name, m)
		}
	}
	if testing.Verbose() {
		t.Logf("%d traces, %d decision points, no-call %.1f%%, parallel %.1f%%", len(cases), points, 100*share(noCall), 100*share(parallel))
		for _, m := range append([]Mistake{MistakeNone}, MistakeKinds()...) {
			name := string(m)
			if m == MistakeNone {
				name = "(correct)"
			}
			t.Logf("  %-18s %5d  %.1f%%", name+":", mistakes[m], 100*share(mistakes[m]))
		}
		t.Logf("cohorts %v models %v prompts %v", cohorts, models, prompts)
	}
}
