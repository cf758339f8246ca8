package tui

import (
	"fmt"

	"github.com/goldtrace/goldtrace/score"
	"github.com/goldtrace/goldtrace/store"
)

// batchAccuracy is, for one batch, how often the production model's
// observed calls were right (exact_call) on the batch's gold items: a batch
// drawn where runs disagree should hold more of the model's mistakes than a
// random one, and this shows the lead what the ranking bought.
type batchAccuracy struct {
	Name    string
	By      string // "" random, "disagreement", "stale", "tool", "meta.X"
	Gold    int    // the batch's items that are gold
	Correct int
}

// batchAccuracies scores the report's items per batch, in batch order;
// batches without gold items are left out.
func batchAccuracies(batches []store.BatchSample, items []score.ItemResult) []batchAccuracy {
	correct := make(map[string]bool, len(items))
	for _, r := range items {
		correct[r.ID] = r.Correct
	}
	var out []batchAccuracy
	for _, b := range batches {
		a := batchAccuracy{Name: b.Name, By: b.By}
		for _, id := range b.Items {
			ok, isGold := correct[id]
			if !isGold {
				continue
			}
			a.Gold++
			if ok {
				a.Correct++
			}
		}
		if a.Gold > 0 {
			out = append(out, a)
		}
	}
	return out
}

// batchParts is the header's line of observed accuracy per batch:
// "b1 random 0.58 (80) · b2 disagreement 0.39 (78)". Shown when there is
// more than one batch to compare.
func batchParts(s *Styles, bs []batchAccuracy) []string {
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
