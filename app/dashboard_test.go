package app

import (
	"testing"

	"github.com/goldtrace/goldtrace/score"
)

func TestBatchAccuracies(t *testing.T) {
	items := []score.ItemResult{{ID: "a", Correct: true}, {ID: "b"}, {ID: "c", Correct: true}, {ID: "d"}}
	batches := []BatchSample{
		{Name: "b1", Items: []string{"a", "c", "x"}},                     // random; x is not gold
		{Name: "b2", By: "disagreement", Items: []string{"b", "d", "c"}}, // c is in both
		{Name: "b3", By: "tool", Items: []string{"y"}},                   // no gold: left out
	}
	got := batchAccuracies(batches, items)
	if len(got) != 2 || got[0] != (BatchAccuracy{"b1", "", 2, 2}) || got[1] != (BatchAccuracy{"b2", "disagreement", 3, 1}) {
		t.Fatalf("%+v", got)
	}
}
