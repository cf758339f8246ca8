package sampling

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"testing"

	"github.com/goldtrace/goldtrace/trace"
)

func calls(cs ...trace.Call) []trace.Call {
	if cs == nil {
		return []trace.Call{}
	}
	return cs
}

func TestDisagree(t *testing.T) {
	get := trace.NewCall("", "get", `{"id":1}`)
	get10 := trace.NewCall("", "get", `{"id":1.0}`) // the same value
	get2 := trace.NewCall("", "get", `{"id":2}`)
	put := trace.NewCall("", "put", `{}`)
	tests := []struct {
		name       string
		runs       [][]trace.Call
		tool, call float64
		n          int
	}{
		{"agree, numbers by value", [][]trace.Call{calls(get), calls(get10)}, 0, 0, 2},
		{"arguments differ", [][]trace.Call{calls(get), calls(get2)}, 0, 0.5, 2},
		{"tools differ", [][]trace.Call{calls(get), calls(put)}, 0.5, 0.5, 2},
		{"call vs no call", [][]trace.Call{calls(get), calls()}, 0.5, 0.5, 2},
		{"both no call", [][]trace.Call{calls(), calls()}, 0, 0, 2},
		{"a run without a line is left out", [][]trace.Call{calls(get), nil, calls(get)}, 0, 0, 2},
		{"one run only", [][]trace.Call{calls(get), nil}, 0, 0, 1},
		{"three runs, two agree", [][]trace.Call{calls(get), calls(get), calls(put)}, 1 - 2.0/3, 1 - 2.0/3, 3},
	}
	for _, tt := range tests {
		d := Disagree(tt.runs)
		if d.Runs != tt.n || fmt.Sprintf("%.4f %.4f", d.Tool, d.Call) != fmt.Sprintf("%.4f %.4f", tt.tool, tt.call) {
			t.Errorf("%s: %+v", tt.name, d)
		}
	}
	if !(Disagreement{Tool: 0.5, Call: 0.5}.Priority(false) > Disagreement{Call: 0.5}.Priority(false)) || (Disagreement{}).Priority(false) != 0 {
		t.Error("tool disagreement does not outrank argument disagreement")
	}
}

// TestPrioritizeTakesTheTopThenTheSeededOrder: with priorities the sample
// is the highest-priority inputs, in seeded order within a priority, and
// the same seed gives the same sample.
func TestPrioritizeTakesTheTopThenTheSeededOrder(t *testing.T) {
	draw := func(seed int64) []string {
		s := NewSampler(seed, 5, true)
		prio := map[string]uint8{}
		var cands []Candidate
		for i := range 40 {
			sum := sha256.Sum256([]byte{byte(i)})
			h := hex.EncodeToString(sum[:])
			if i%5 == 0 {
				prio[h] = 120 // 8 inputs
			}
			if i == 7 {
				prio[h] = 200
			}
			cands = append(cands, Candidate{ItemID: fmt.Sprintf("it_%02d", i), TraceID: fmt.Sprintf("t%02d", i), InputHash: h})
		}
		s.Prioritize(prio)
		for _, c := range cands {
			s.Offer(c)
		}
		res, err := s.Result(AllocProportional, 1)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, c := range res.Items {
			ids = append(ids, c.ItemID)
		}
		return ids
	}
	a := draw(1)
	if len(a) != 5 || a[0] != "it_07" {
		t.Fatalf("sample %v: the top priority first", a)
	}
	for _, id := range a[1:] {
		var n int
		fmt.Sscanf(id, "it_%d", &n)
		if n%5 != 0 {
			t.Errorf("%s drawn before the priority-120 inputs ran out: %v", id, a)
		}
	}
	if fmt.Sprint(draw(1)) != fmt.Sprint(a) {
		t.Error("same seed, different sample")
	}
	if b := draw(2); fmt.Sprint(b) == fmt.Sprint(a) || b[0] != "it_07" {
		t.Errorf("another seed: %v (ties should reorder, the top stays)", b)
	}
}

func TestJudgeSplitRanksWithinALevel(t *testing.T) {
	for _, tt := range []struct {
		d    Disagreement
		want float64
	}{
		{Disagreement{}, 0},
		{Disagreement{JudgeYes: 5, JudgeVotes: 5}, 0},
		{Disagreement{JudgeYes: 0, JudgeVotes: 10}, 0},
		{Disagreement{JudgeYes: 5, JudgeVotes: 10}, 1},
		{Disagreement{JudgeYes: 6, JudgeVotes: 10}, 0.8},
	} {
		if got := tt.d.JudgeSplit(); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%+v: split %g, want %g", tt.d, got, tt.want)
		}
	}
	// Two runs picking different tools (which differ on the call too)
	// outrank any split alone; a full split outranks runs that differ on
	// arguments only, and agreement; without a judge the buckets are as
	// before.
	tool := Disagreement{Tool: 0.5, Call: 0.5, JudgeYes: 10, JudgeVotes: 10}
	torn, args, calm := Disagreement{JudgeYes: 5, JudgeVotes: 10}, Disagreement{Call: 0.5}, Disagreement{}
	if !(tool.Priority(true) > torn.Priority(true) && torn.Priority(true) > args.Priority(true) && args.Priority(true) > calm.Priority(true)) {
		t.Errorf("priorities %d %d %d %d", tool.Priority(true), torn.Priority(true), args.Priority(true), calm.Priority(true))
	}
	if max := (Disagreement{Tool: 1, Call: 1, JudgeYes: 1, JudgeVotes: 2}).Priority(true); max != 240 {
		t.Errorf("top priority %d", max)
	}
	if (Disagreement{Tool: 0.5, Call: 0.5}).Priority(false) != 120 {
		t.Error("the ranking without a judge changed")
	}
}
