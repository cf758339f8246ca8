package dataset

import (
	"fmt"
	"testing"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// BenchmarkBuildAndAssemble builds and assembles 20k records (10k traces ×
// 2 decision points) as the store hands them over.
func BenchmarkBuildAndAssemble(b *testing.B) {
	golds := make([]TraceGold, 10_000)
	for i := range golds {
		tr := orderTrace(fmt.Sprintf("tr_%06d", i))
		raw, _ := trace.MarshalCanonical(tr.Messages)
		tr.Messages = nil
		golds[i] = TraceGold{Trace: tr, MessagesJSON: raw, Answers: []Answer{callAnswer(2), noCallAnswer(4)}}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		add, wait := BuildStream(1, gold.CurrentRecordFormat)
		for _, tg := range golds {
			add(tg)
		}
		lines, err := wait()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Assemble(lines); err != nil {
			b.Fatal(err)
		}
	}
}
