package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	gapp "github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/guide"
	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/sampling"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace/synth"
)

// demoBatch is the batch the demo samples for alice and bob.
const demoBatch = "demo"

// demoWork is what seedDemoWork set up for people to try.
type demoWork struct {
	Batch        string `json:"batch"`
	Items        int    `json:"batch_items"`
	BobLabeled   int    `json:"bob_labeled"`
	AliceLabeled int    `json:"alice_labeled"`
	AliceLeft    int    `json:"alice_left"`
	Agreed       int    `json:"agreed"`
	Disputed     int    `json:"disputed"`
	Guide        string `json:"guide_version"`
}

// seedDemoWork stores the default guide, samples the demo batch (stratified
// by the observed tool, both reviewers on every item) and submits simulated
// labels: all of bob's and the first ones of alice's, so that alice has work
// left in the TUI, carol has disputes to adjudicate and the dashboard has
// gold to score. A directory that already has the batch is left as it is.
func seedDemoWork(ctx context.Context, st *store.Store, cases []synth.Case, seed int64, n, aliceDone int) (demoWork, error) {
	w := demoWork{Batch: demoBatch}
	g, err := st.EnsureGuide(ctx, guide.ID(guide.Default()), guide.Default(), "carol")
	if err != nil {
		return w, fmt.Errorf("store the default guide: %w", err)
	}
	w.Guide = g.ID
	batches, err := st.Batches(ctx)
	if err != nil {
		return w, err
	}
	for _, b := range batches {
		if b.Name == demoBatch {
			return w, nil
		}
	}
	// The demo's lead samples the batch, as a lead would.
	be := gapp.New(st)
	carol, err := be.LocalActor(ctx, "carol")
	if err != nil {
		return w, err
	}
	plan, err := be.Sample(ctx, carol, gapp.SampleOptions{N: n, Seed: strconv.FormatInt(seed, 10), By: "tool",
		Alloc: sampling.AllocProportional, MinPer: 1, Turns: sampling.TurnsAll, ExcludeSampled: true,
		Batch: demoBatch, Reviewers: []string{"alice", "bob"}, PerItem: 2}, true, gapp.SampleIO{})
	if err != nil {
		return w, fmt.Errorf("sample the demo batch: %w", err)
	}
	w.Items = len(plan.Items)

	truth := map[string]synth.Expected{}
	for _, c := range cases {
		for _, e := range c.Expected {
			truth[e.ItemID] = e
		}
	}
	for i, it := range plan.Items {
		e, ok := truth[it.ID]
		if !ok {
			return w, fmt.Errorf("demo item %s has no simulated truth", it.ID)
		}
		reviewers := []string{"bob"}
		if i < aliceDone {
			reviewers = append(reviewers, "alice")
		}
		for _, r := range reviewers {
			set, err := st.SubmitLabel(ctx, demoLabel(synth.SimulatedLabel(e, r, seed), g.ID, i))
			if err != nil {
				return w, fmt.Errorf("demo label of %s by %s: %w", it.ID, r, err)
			}
			if r == "bob" {
				w.BobLabeled++
			} else {
				w.AliceLabeled++
			}
			if set.Settled {
				if set.Comparison.Agreed {
					w.Agreed++
				} else {
					w.Disputed++
				}
			}
		}
	}
	w.AliceLeft = w.Items - w.AliceLabeled
	if w.Items == 0 {
		return w, errors.New("the demo sample is empty")
	}
	return w, nil
}

// demoLabel turns a simulated reviewer's answer into a submitted label.
func demoLabel(a synth.Answer, guideVersion string, i int) review.Label {
	l := review.Label{Item: a.ItemID, Reviewer: a.Reviewer, Decision: review.DecisionNoCall,
		Calls: []review.LabelCall{}, Rationale: a.Rationale, GuideVersion: guideVersion, Seconds: 20 + (i*7)%40}
	if !a.NoCall {
		l.Decision = review.DecisionCall
		for _, c := range a.Calls {
			l.Calls = append(l.Calls, review.LabelCall{Tool: c.Name, Args: c.Arguments})
		}
	}
	return l
}
