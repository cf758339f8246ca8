package tui

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace/synth"
)

// dashboardClock is the fixed time of dashboard fixtures.
var dashboardClock = time.Date(2026, 5, 2, 9, 30, 0, 0, time.UTC)

// dashboardStore is a store with synthetic traces, reviewers alice and bob,
// lead carol and nothing sampled.
func dashboardStore(tb testing.TB, traces int) (*store.Store, []synth.Case) {
	tb.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(tb.TempDir(), "gt.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	st.Now = func() time.Time { return dashboardClock }
	for _, u := range []struct{ name, role string }{{"alice", store.RoleReviewer}, {"bob", store.RoleReviewer}, {"carol", store.RoleLead}} {
		if err := st.AddUser(ctx, u.name, u.role); err != nil {
			tb.Fatal(err)
		}
	}
	cases := synth.GenerateCases(synth.Options{Seed: 1, N: traces})
	err = st.WithTx(ctx, func(tx *store.Tx) error {
		for _, c := range cases {
			if _, err := st.InsertTrace(ctx, tx, c.Trace, "fixture"); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return st, cases
}

// dashboardFixture samples the first items decision points of 40 synthetic
// traces into batch b1 for alice and bob, submits their simulated labels
// (mostly agreeing) and lets carol adjudicate the first dispute by picking
// alice's label.
func dashboardFixture(tb testing.TB, items int) *store.Store {
	tb.Helper()
	ctx := context.Background()
	st, cases := dashboardStore(tb, 40)
	var truth []synth.Expected
	for _, c := range cases {
		truth = append(truth, c.Expected...)
	}
	truth = truth[:items]
	b := store.NewBatch{Name: "b1", Seed: 1, PerItem: 2, CreatedBy: "carol"}
	for _, e := range truth {
		b.Items = append(b.Items, store.BatchItem{ItemID: e.ItemID, Reviewers: []string{"alice", "bob"}})
	}
	if err := st.CreateBatch(ctx, b); err != nil {
		tb.Fatal(err)
	}
	for _, e := range truth {
		for _, r := range []string{"alice", "bob"} {
			submitSimulated(tb, st, e, r)
		}
	}
	disputes, err := st.DisputedQueue(ctx, store.DisputeFilter{})
	if err != nil {
		tb.Fatal(err)
	}
	if len(disputes) > 0 {
		if _, err := st.Resolve(ctx, store.Resolution{Item: disputes[0].Item, Lead: "carol", Pick: "alice", Reason: "alice read the guide right"}); err != nil {
			tb.Fatal(err)
		}
	}
	return st
}

func submitSimulated(tb testing.TB, st *store.Store, e synth.Expected, reviewer string) {
	tb.Helper()
	a := synth.SimulatedLabel(e, reviewer, 1)
	l := review.Label{Item: e.ItemID, Reviewer: reviewer, Decision: review.DecisionNoCall, Rationale: a.Rationale, Seconds: 20}
	if !a.NoCall {
		l.Decision = review.DecisionCall
		for _, c := range a.Calls {
			l.Calls = append(l.Calls, review.LabelCall{Tool: c.Name, Args: c.Arguments})
		}
	}
	if _, err := st.SubmitLabel(context.Background(), l); err != nil {
		tb.Fatal(err)
	}
}
