package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/goldtrace/goldtrace/score"
	"github.com/goldtrace/goldtrace/store"
)

func TestBatchAccuracies(t *testing.T) {
	items := []score.ItemResult{{ID: "a", Correct: true}, {ID: "b"}, {ID: "c", Correct: true}, {ID: "d"}}
	batches := []store.BatchSample{
		{Name: "b1", Items: []string{"a", "c", "x"}},                     // random; x is not gold
		{Name: "b2", By: "disagreement", Items: []string{"b", "d", "c"}}, // c is in both
		{Name: "b3", By: "tool", Items: []string{"y"}},                   // no gold: left out
	}
	got := batchAccuracies(batches, items)
	if len(got) != 2 || got[0] != (batchAccuracy{"b1", "", 2, 2}) || got[1] != (batchAccuracy{"b2", "disagreement", 3, 1}) {
		t.Fatalf("%+v", got)
	}
	s := NewStyles()
	line := ansi.Strip(strings.Join(batchParts(&s, got), " · "))
	if line != "model exact_call by batch · b1 random 1.00 (2) · b2 disagreement 0.33 (3)" {
		t.Errorf("%q", line)
	}
	if batchParts(&s, got[:1]) != nil {
		t.Error("one batch: nothing to compare, nothing shown")
	}
}
