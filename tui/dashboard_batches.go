package tui

import (
	"fmt"

	"github.com/goldtrace/goldtrace/app"
)

// batchParts is the header's line of observed accuracy per batch:
// "b1 random 0.58 (80) · b2 disagreement 0.39 (78)". Shown when there is
// more than one batch to compare.
func batchParts(s *Styles, bs []app.BatchAccuracy) []string {
	if len(bs) < 2 {
		return nil
	}
	parts := []string{s.Muted.Render("model exact_call by batch")}
	for _, b := range bs {
		how := b.By
		if how == "" {
			how = "random"
		}
		parts = append(parts, b.Name+s.Muted.Render(" "+how+" ")+fmt.Sprintf("%.2f", float64(b.Correct)/float64(b.Gold))+s.Muted.Render(fmt.Sprintf(" (%d)", b.Gold)))
	}
	return parts
}
