package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/goldtrace/goldtrace/app"
)

// The batches' accuracies themselves are app's (app.TestBatchAccuracies).
func TestBatchParts(t *testing.T) {
	got := []app.BatchAccuracy{{Name: "b1", Gold: 2, Correct: 2}, {Name: "b2", By: "disagreement", Gold: 3, Correct: 1}}
	s := NewStyles()
	line := ansi.Strip(strings.Join(batchParts(&s, got), " · "))
	if line != "model exact_call by batch · b1 random 1.00 (2) · b2 disagreement 0.33 (3)" {
		t.Errorf("%q", line)
	}
	if batchParts(&s, got[:1]) != nil {
		t.Error("one batch: nothing to compare, nothing shown")
	}
}
