package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/store"
)

func TestBatchesListsProgressAndResampling(t *testing.T) {
	db := smpDB(t, smpCorpus())
	if out := smpMust(t, db, "batches"); !strings.Contains(out, "no batches yet") {
		t.Errorf("empty store: %q", out)
	}
	smpMust(t, db, "sample", "--n", "10", "--seed", "2", "--reviewers", "alice,bob", "--batch", "pilot")
	// Resampling on purpose: items already in "pilot" may be drawn again;
	// their existing (item, reviewer) assignments are kept, not doubled.
	again := smpPlan(t, smpMust(t, db, "sample", "--n", "400", "--seed", "2", "--exclude-sampled=false",
		"--reviewers", "alice,bob", "--json"))
	if again.Sampled != 360 || again.Batch != "b1" {
		t.Errorf("resample: %d items into %s, want all 360 into b1", again.Sampled, again.Batch)
	}
	var batches []store.BatchSummary
	if err := json.Unmarshal([]byte(smpMust(t, db, "batches", "--json")), &batches); err != nil {
		t.Fatal(err)
	}
	if len(batches) != 2 {
		t.Fatalf("batches: %+v", batches)
	}
	byName := map[string]store.BatchSummary{}
	for _, b := range batches {
		byName[b.Name] = b
	}
	if p := byName["pilot"]; p.Items != 10 || p.Assignments["pending"] != 20 || p.Seed != 2 {
		t.Errorf("pilot: %+v", p)
	}
	if b := byName["b1"]; b.Items != 360 || b.Assignments["pending"] != 2*360-20 {
		t.Errorf("b1: %+v (the 20 pilot assignments stay in pilot)", b)
	}
	out := smpMust(t, db, "batches")
	for _, want := range []string{"BATCH", "PENDING", "pilot", "alice,bob"} {
		if !strings.Contains(out, want) {
			t.Errorf("batches text lacks %q:\n%s", want, out)
		}
	}
}
