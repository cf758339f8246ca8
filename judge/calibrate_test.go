package judge

import "testing"

func TestKappa(t *testing.T) {
	cases := []struct {
		c          Confusion
		agree      float64
		kappa      float64
		kappaIsNil bool
	}{
		// textbook example: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no → po .7, pe .5, κ .4
		{Confusion{BothCorrect: 20, HumanCorrectOnly: 5, JudgeCorrectOnly: 10, BothIncorrect: 15}, 0.7, 0.4, false},
		{Confusion{BothCorrect: 10, BothIncorrect: 10}, 1, 1, false},
		{Confusion{BothCorrect: 7}, 1, 0, true},
	}
	for _, tc := range cases {
		a, k := Kappa(tc.c)
		if a == nil || *a != tc.agree {
			t.Errorf("%+v: agreement %v, want %v", tc.c, a, tc.agree)
		}
		if tc.kappaIsNil != (k == nil) || (k != nil && *k != tc.kappa) {
			t.Errorf("%+v: kappa %v, want %v", tc.c, k, tc.kappa)
		}
	}
}

func TestCalibratePerTool(t *testing.T) {
	yes, no := true, false
	pairs := []Pair{
		{ID: "a", Tool: "lookup", Human: true, Judge: &yes},
		{ID: "b", Tool: "lookup", Human: false, Judge: &yes},
		{ID: "c", Tool: "(none)", Human: true, Judge: &yes},
		{ID: "d", Tool: "cancel", Human: false, Judge: &no},
		{ID: "e", Tool: "cancel", Human: false, Judge: nil},
	}
	c := Calibrate(pairs)
	if c.Items != 4 || c.NotJudged != 1 || *c.Agreement.Agreement != 0.75 {
		t.Fatalf("overall %+v", c)
	}
	if len(c.PerTool) != 3 || c.PerTool[0].Tool != "cancel" || c.PerTool[2].Tool != "(none)" {
		t.Fatalf("per tool %+v", c.PerTool)
	}
	if c.Confusion.JudgeCorrectOnly != 1 || c.Confusion.BothCorrect != 2 || c.Confusion.BothIncorrect != 1 {
		t.Fatalf("confusion %+v", c.Confusion)
	}
}
