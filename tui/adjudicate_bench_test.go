package tui

import (
	"fmt"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/goldtrace/goldtrace/store"
)

// BenchmarkAdjudicateQueueLoad is the load after every decision: the whole
// disputed queue, the status counts and the shown item's detail.
func BenchmarkAdjudicateQueueLoad(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("disputes=%d", n), func(b *testing.B) {
			f := newAdjFixture(b, n)
			for _, item := range f.items {
				f.disputeArgs(b, item)
			}
			req := adjRequest{st: f.st, lead: "carol"}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				msg := req.queueCmd(1, store.DisputeFilter{}, "", n/2)().(adjQueueMsg)
				if msg.err != nil || len(msg.queue) != n {
					b.Fatalf("%d queued, %v", len(msg.queue), msg.err)
				}
			}
		})
	}
}

// BenchmarkAdjudicateView renders the screen at 80×24 and 120×40.
func BenchmarkAdjudicateView(b *testing.B) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		b.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(b *testing.B) {
			f := newAdjFixture(b, 1)
			f.disputeArgs(b, f.items[0])
			r, _ := newAdjRoot(b, f, AdjudicateOptions{}, size[0], size[1])
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				// A resize re-renders the context and labels, then the view.
				r.Update(tea.WindowSizeMsg{Width: size[0] + i%2, Height: size[1]})
				_ = r.View()
			}
		})
	}
}
