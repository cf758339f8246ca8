package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/goldtrace/goldtrace/guide"
	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/sampling"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
	"github.com/goldtrace/goldtrace/trace/synth"
)

// DemoBatch is the batch the demo samples for alice and bob.
const DemoBatch = "demo"

// DemoProject is what NewDemo made (goldtrace demo --json).
type DemoProject struct {
	Dir             string   `json:"dir"`
	DB              string   `json:"db"`
	Seed            int64    `json:"seed"`
	Traces          int      `json:"traces"`
	Items           int      `json:"items"`
	ItemsWithCalls  int      `json:"items_with_calls"`
	ItemsNoCalls    int      `json:"items_without_calls"`
	Reviewers       []string `json:"reviewers"`
	Leads           []string `json:"leads"`
	DeliberateWrong int      `json:"deliberately_wrong_items"`
	Work            DemoWork `json:"work"`
	// cases are the generated traces with their simulated truth.
	cases []synth.Case
}

// DemoWork is the state of the demo batch: what SeedDemoWork set up for
// people to try, and (RefreshDemoWork) what they have done since.
type DemoWork struct {
	Batch        string `json:"batch"`
	Items        int    `json:"batch_items"`
	BobLabeled   int    `json:"bob_labeled"`
	AliceLabeled int    `json:"alice_labeled"`
	AliceLeft    int    `json:"alice_left"`
	Agreed       int    `json:"agreed"`
	Disputed     int    `json:"disputed"`
	Adjudicated  int    `json:"adjudicated"`
	// Open counts the batch's items that are not gold yet (being labeled
	// or disputed): an export without --allow-partial refuses them.
	Open  int    `json:"open"`
	Guide string `json:"guide_version"`
	// NextVersion is the version export support would write next.
	NextVersion int `json:"next_version"`
}

// RefreshDemoWork counts the demo batch as it is now, as status counts it,
// and the dataset version an export would write next.
func (a *App) RefreshDemoWork(ctx context.Context, w *DemoWork) error {
	for _, r := range []struct {
		name    string
		labeled *int
	}{{"bob", &w.BobLabeled}, {"alice", &w.AliceLabeled}} {
		prog, err := a.st.Progress(ctx, r.name, w.Batch)
		if err != nil {
			return err
		}
		*r.labeled = prog[store.AssignSubmitted]
		if r.name == "alice" {
			w.AliceLeft = prog[store.AssignPending] + prog[store.AssignDraft]
		}
	}
	counts, err := a.st.ItemStatusCounts(ctx, w.Batch)
	if err != nil {
		return err
	}
	w.Agreed, w.Disputed, w.Adjudicated = counts["agreed"], counts["disputed"], counts["adjudicated"]
	w.Open = w.Items - w.Agreed - w.Adjudicated
	versions, err := a.st.DatasetVersions(ctx, DemoDataset)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	w.NextVersion = 1
	for _, v := range versions {
		w.NextVersion = max(w.NextVersion, v.Version+1)
	}
	return nil
}

// DemoDataset is the dataset name the demo's printed commands export.
const DemoDataset = "support"

// NewDemo creates the demo project in dir (goldtrace.db): reviewers alice
// and bob, lead carol, and the synthetic traces of opts, inserted in one
// transaction. Everything goes through the App as a user would do it: the
// users are added while the project has no lead (or by carol when the
// directory already holds the demo), the traces are imported by carol.
// Re-running in the same directory finds the same traces stored.
// closeStore closes the database.
func NewDemo(ctx context.Context, dir string, opts synth.Options) (a *App, p DemoProject, closeStore func(), err error) {
	p = DemoProject{Dir: dir, DB: filepath.Join(dir, "goldtrace.db"), Seed: opts.Seed}
	st, err := store.Open(ctx, p.DB)
	if err != nil {
		return nil, p, nil, fmt.Errorf("open demo store: %w", err)
	}
	a = New(st)
	fail := func(err error) (*App, DemoProject, func(), error) {
		st.Close()
		return nil, p, nil, err
	}
	adder, err := a.LocalActor(ctx, "carol")
	if err != nil {
		adder = Actor{Source: SourceLocal} // a new project: no lead yet
	}
	users := []struct {
		name string
		role Role
	}{{"carol", RoleLead}, {"alice", RoleReviewer}, {"bob", RoleReviewer}}
	for _, u := range users {
		if err := a.AddUser(ctx, adder, u.name, u.role); err != nil {
			return fail(fmt.Errorf("add demo user %s: %w", u.name, err))
		}
		if u.role == RoleLead {
			if adder, err = a.LocalActor(ctx, u.name); err != nil {
				return fail(err)
			}
		}
	}
	p.Reviewers, p.Leads = []string{"alice", "bob"}, []string{"carol"}
	if adder, err = a.authorize(ctx, adder, ActImport, "demo traces"); err != nil {
		return fail(err)
	}
	cases := synth.GenerateCases(opts)
	p.cases = cases
	imported := a.auditing(ctx, adder, ActImport, fmt.Sprintf("demo: %d synthetic traces (seed %d)", len(cases), opts.Seed))
	err = st.WithTx(imported, func(tx *store.Tx) error {
		for _, c := range cases {
			if _, err := st.InsertTrace(ctx, tx, c.Trace, "demo"); err != nil {
				return fmt.Errorf("insert demo trace %s: %w", c.Trace.ID, err)
			}
			p.Traces++
			for _, it := range trace.Items(c.Trace) {
				p.Items++
				if len(it.Observed) > 0 {
					p.ItemsWithCalls++
				} else {
					p.ItemsNoCalls++
				}
			}
			for _, e := range c.Expected {
				if e.Mistake != synth.MistakeNone {
					p.DeliberateWrong++
				}
			}
		}
		return nil
	})
	if err == nil {
		err = a.audited(imported)
	}
	if err != nil {
		return fail(err)
	}
	return a, p, func() { st.Close() }, nil
}

// SeedDemoWork stores the default guide, samples the demo batch (stratified
// by the observed tool, both reviewers on every item) and submits simulated
// labels: all of bob's and the first ones of alice's, so that alice has work
// left in the TUI, carol has disputes to adjudicate and the dashboard has
// gold to score. A directory that already has the batch is left as it is.
// carol samples; alice and bob submit their own labels.
func (a *App) SeedDemoWork(ctx context.Context, p *DemoProject, seed int64, n, aliceDone int) error {
	w := &p.Work
	w.Batch = DemoBatch
	carol, err := a.LocalActor(ctx, "carol")
	if err != nil {
		return err
	}
	g, err := a.EnsureGuide(ctx, carol, guide.ID(guide.Default()), guide.Default(), "carol")
	if err != nil {
		return fmt.Errorf("store the default guide: %w", err)
	}
	w.Guide = g.ID
	batches, err := a.Batches(ctx, carol)
	if err != nil {
		return err
	}
	for _, b := range batches {
		if b.Name == DemoBatch {
			w.Items = b.Items
			return a.RefreshDemoWork(ctx, w)
		}
	}
	plan, err := a.Sample(ctx, carol, SampleOptions{N: n, Seed: strconv.FormatInt(seed, 10), By: "tool",
		Alloc: sampling.AllocProportional, MinPer: 1, Turns: sampling.TurnsAll, ExcludeSampled: true,
		Batch: DemoBatch, Reviewers: []string{"alice", "bob"}, PerItem: 2}, true, SampleIO{})
	if err != nil {
		return fmt.Errorf("sample the demo batch: %w", err)
	}
	w.Items = len(plan.Items)
	if w.Items == 0 {
		return errors.New("the demo sample is empty")
	}
	sessions := map[string]*Session{}
	for _, r := range []string{"alice", "bob"} {
		actor, err := a.LocalActor(ctx, r)
		if err != nil {
			return err
		}
		sessions[r] = a.As(actor)
	}
	truth := map[string]synth.Expected{}
	for _, c := range p.cases {
		for _, e := range c.Expected {
			truth[e.ItemID] = e
		}
	}
	for i, it := range plan.Items {
		e, ok := truth[it.ID]
		if !ok {
			return fmt.Errorf("demo item %s has no simulated truth", it.ID)
		}
		reviewers := []string{"bob"}
		if i < aliceDone {
			reviewers = append(reviewers, "alice")
		}
		for _, r := range reviewers {
			err := sessions[r].SubmitLabel(ctx, DemoLabel(synth.SimulatedLabel(e, r, seed), g.ID, i))
			if err != nil {
				return fmt.Errorf("demo label of %s by %s: %w", it.ID, r, err)
			}
			if r == "bob" {
				w.BobLabeled++
			} else {
				w.AliceLabeled++
			}
		}
	}
	// A reviewer's submit does not say how the item settled (blind), so
	// the outcome is counted from the batch afterwards.
	return a.RefreshDemoWork(ctx, w)
}

// DemoLabel turns a simulated reviewer's answer into a submitted label (the
// i-th of the demo: it took 20 to 59 seconds).
func DemoLabel(a synth.Answer, guideVersion string, i int) review.Label {
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
