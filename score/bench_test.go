package score

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// benchDataset builds n varied items: 1–3 calls (a fifth no-call), three
// cohorts, and predictions that are right, wrong-valued, wrong-tool,
// short, long, hallucinated or unparseable.
func benchDataset(n int, seed uint64) ([]Case, []Prediction) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	tools := make([]trace.Tool, 8)
	for i := range tools {
		tools[i] = trace.Tool{
			Name:       fmt.Sprintf("tool_%d", i),
			Parameters: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"id":{"type":"string"},"n":{"type":"integer","default":%d},"opts":{"type":"object"}}}`, i)),
		}
	}
	cohorts := []map[string]string{{"cohort": "billing"}, {"cohort": "shipping"}, {"cohort": "returns"}}
	cases := make([]Case, n)
	preds := make([]Prediction, n)
	for i := range cases {
		c := Case{ID: fmt.Sprintf("it_%08d", i), Tools: tools, Meta: cohorts[i%3]}
		calls := 0
		if rng.IntN(5) > 0 {
			calls = 1 + rng.IntN(3)
		}
		var pred []trace.Call
		for k := 0; k < calls; k++ {
			tool := tools[rng.IntN(len(tools))].Name
			args := fmt.Sprintf(`{"id":"ORD-%d","n":%d,"opts":{"fast":true,"tags":["a","b"]}}`, rng.IntN(1000), rng.IntN(5))
			e := gold.ExpectedCall{Tool: tool, Args: json.RawMessage(args)}
			if k == 1 {
				e.ArgRules = map[string]gold.ArgRule{"id": {Match: gold.MatchFuzzy}, "n": {Optional: true}}
			}
			c.Expected = append(c.Expected, e)
			switch rng.IntN(10) {
			case 0: // wrong value
				pred = append(pred, trace.Call{Name: tool, Arguments: json.RawMessage(`{"id":"ORD-x","n":1,"opts":{"fast":true,"tags":["a","b"]}}`)})
			case 1: // wrong tool
				pred = append(pred, trace.Call{Name: tools[(k+3)%len(tools)].Name, Arguments: json.RawMessage(args)})
			case 2: // missed
			case 3: // unparseable
				pred = append(pred, trace.NewCall("", tool, `{"id": ORD`))
			default: // right, keys reordered
				pred = append(pred, trace.Call{Name: tool, Arguments: json.RawMessage(reorder(args))})
			}
		}
		switch rng.IntN(20) {
		case 0:
			pred = append(pred, trace.Call{Name: "made_up_tool", Arguments: json.RawMessage(`{}`)})
		case 1:
			rng.Shuffle(len(pred), func(a, b int) { pred[a], pred[b] = pred[b], pred[a] })
		}
		cases[i] = c
		preds[i] = Prediction{Calls: pred}
	}
	return cases, preds
}

// reorder moves the first member of a flat-ish object to the end.
func reorder(args string) string {
	var m map[string]json.RawMessage
	_ = json.Unmarshal([]byte(args), &m)
	return fmt.Sprintf(`{"opts":%s,"n":%s,"id":%s}`, m["opts"], m["n"], m["id"])
}

// BenchmarkScore100k scores 100,000 items with every metric, the confusion
// matrix and a cohort breakdown. Target: under 1 s per op on one core.
func BenchmarkScore100k(b *testing.B) {
	cases, preds := benchDataset(100_000, 1)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	for b.Loop() {
		r := Score(cases, preds, Options{By: []string{"cohort"}})
		if r.Overall.Items != len(cases) {
			b.Fatal("lost items")
		}
	}
	b.ReportMetric(float64(len(cases))*float64(b.N)/b.Elapsed().Seconds(), "items/s")
	// CPU seconds per op: the number to hold against the 1 s target when the
	// machine is shared (run with -cpu 1).
	b.ReportMetric((processCPU()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}

// BenchmarkItem is the per-item hot path.
func BenchmarkItem(b *testing.B) {
	cases, preds := benchDataset(1000, 2)
	s := NewScorer(ProfileDefault)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		s.Item(&cases[i%len(cases)], preds[i%len(preds)])
		i++
	}
}
