package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/goldtrace/goldtrace/catalogue"
	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/sampling"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// StaleOptions are the flags of `goldtrace sample --stale`.
type StaleOptions struct {
	Gold      dataset.Ref  `json:"gold"`
	Tools     []trace.Tool `json:"-"`
	ToolsName string       `json:"tools"`
	Batch     string       `json:"-"`
	Reviewers []string     `json:"-"`
	PerItem   int          `json:"-"`
	DryRun    bool         `json:"-"`
}

// StalePlan is what `sample --stale` did (or would do).
type StalePlan struct {
	Gold      string         `json:"gold"`
	Tools     string         `json:"tools"`
	Items     int            `json:"items"` // gold items checked
	Stale     int            `json:"stale"`
	Batch     string         `json:"batch"`
	PerItem   int            `json:"per_item"`
	Reviewers []ReviewerLoad `json:"reviewers"`
	Assigned  []PlannedItem  `json:"assigned"`
	DryRun    bool           `json:"dry_run"`
}

// SampleStale puts the items of a dataset version that are stale against a
// tool catalogue (catalogue.Drift) back in front of reviewers, as a new
// batch: each assigned reviewer finds the old answer as a draft to start
// from and a note naming what changed. The items are labeling again until
// the new labels settle them, so the next export carries the re-reviewed
// answers and its diff names them as changed. Leads only (it reopens gold).
//
// It is long because authorizing, reading the version and the catalogue,
// planning and writing the batch are one action with one audit entry.
func (a *App) SampleStale(ctx context.Context, actor Actor, o StaleOptions) (StalePlan, error) {
	if o.PerItem < 1 {
		return StalePlan{}, fmt.Errorf("--per-item must be at least 1, not %d", o.PerItem)
	}
	if !o.DryRun && len(o.Reviewers) == 0 {
		return StalePlan{}, fmt.Errorf("--reviewers is required: who reviews the stale items again")
	}
	if len(o.Reviewers) > 0 && o.PerItem > len(o.Reviewers) {
		return StalePlan{}, fmt.Errorf("--per-item %d is more than the %d reviewers given", o.PerItem, len(o.Reviewers))
	}
	action := ActAdjudicate
	if o.DryRun {
		action = ActDatasetRead
	}
	actor, err := a.authorize(ctx, actor, action, "sample --stale "+o.Gold.String())
	if err != nil {
		return StalePlan{}, err
	}
	missing, err := a.st.MissingUsers(ctx, o.Reviewers)
	if err != nil {
		return StalePlan{}, err
	}
	if len(missing) > 0 {
		return StalePlan{}, fmt.Errorf("--reviewers: unknown users %s (add them with goldtrace users add NAME --role reviewer)", strings.Join(missing, ", "))
	}
	content, err := a.st.DatasetContent(ctx, o.Gold.Name, o.Gold.Version)
	if err != nil {
		return StalePlan{}, noVersion(err, o.Gold.Name, o.Gold.Version)
	}
	var recs []gold.Record
	err = gold.Read(ctx, content, o.Gold.String(), gold.ReadOptions{Fields: gold.FieldNotes}, func(_ int, r *gold.Record) error {
		recs = append(recs, *r)
		return nil
	})
	content.Close()
	if err != nil {
		return StalePlan{}, err
	}
	report := catalogue.Drift(recs, o.Tools)
	plan := StalePlan{Gold: o.Gold.String(), Tools: o.ToolsName, Items: report.Items, Stale: report.Stale, PerItem: o.PerItem,
		Batch: o.Batch, DryRun: o.DryRun, Reviewers: []ReviewerLoad{}, Assigned: []PlannedItem{}}
	if plan.Batch == "" {
		plan.Batch = fmt.Sprintf("%s-v%d-stale", o.Gold.Name, o.Gold.Version)
	}
	if report.Stale == 0 || len(o.Reviewers) == 0 {
		return plan, nil
	}
	sets, err := sampling.Assign(report.Stale, o.Reviewers, o.PerItem)
	if err != nil {
		return StalePlan{}, err
	}
	byID := make(map[string]gold.Record, len(recs))
	for _, r := range recs {
		byID[r.ID] = r
	}
	load := map[string]int{}
	batch := store.StaleBatch{Name: plan.Batch, PerItem: o.PerItem, CreatedBy: actor.Name, Tools: o.Tools,
		Params: map[string]any{"stale": plan.Gold, "tools": o.ToolsName, "reviewers": o.Reviewers, "per_item": o.PerItem}}
	for i, d := range report.Details {
		rec := byID[d.ID]
		draft, err := StaleDraft(rec.ExpectedCalls, rec.Rationale)
		if err != nil {
			return StalePlan{}, fmt.Errorf("item %s: %w", d.ID, err)
		}
		batch.Items = append(batch.Items, store.StaleItem{Item: d.ID, Reviewers: sets[i], Draft: draft, Note: staleNote(plan, d)})
		plan.Assigned = append(plan.Assigned, PlannedItem{ID: d.ID, TraceID: rec.Input.Context.TraceID, Turn: rec.Input.Context.Turn, Stratum: "stale", Reviewers: sets[i]})
		for _, r := range sets[i] {
			load[r]++
		}
	}
	for _, r := range o.Reviewers {
		plan.Reviewers = append(plan.Reviewers, ReviewerLoad{Name: r, Items: load[r]})
	}
	if o.DryRun {
		return plan, nil
	}
	ctx = a.auditing(ctx, actor, ActAdjudicate, fmt.Sprintf("batch %s: %d stale items of %s", plan.Batch, plan.Stale, plan.Gold))
	if err := a.st.ReviewAgain(ctx, batch); err != nil {
		return StalePlan{}, err
	}
	return plan, nil
}

// staleNote is what the reviewers read on a stale item: why it is back.
func staleNote(p StalePlan, d catalogue.ItemDrift) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The tool catalogue changed (%s against %s): the tools offered here are now the current ones, and your draft is the old gold answer, a starting point: check it against what changed.", p.Gold, p.Tools)
	for _, f := range d.Findings {
		fmt.Fprintf(&b, "\n- call %d %s: %s", f.Call, f.Tool, f.Detail)
	}
	return b.String()
}

// StaleDraft is the label screen's draft JSON (drafts.body) holding a gold
// answer: each call's tool and its arguments as indented JSON text, and the
// rationale. The label screen loads it as if the reviewer had typed it.
func StaleDraft(calls []gold.ExpectedCall, rationale string) ([]byte, error) {
	type draftCall struct {
		Tool string `json:"tool"`
		Args string `json:"args"`
	}
	d := struct {
		NoTool    bool        `json:"no_tool,omitempty"`
		Calls     []draftCall `json:"calls"`
		Rationale string      `json:"rationale"`
	}{NoTool: len(calls) == 0, Calls: []draftCall{}, Rationale: rationale}
	for _, c := range calls {
		args, err := json.MarshalIndent(c.Args, "", "  ")
		if err != nil {
			args = c.Args
		}
		d.Calls = append(d.Calls, draftCall{Tool: c.Tool, Args: string(args)})
	}
	return json.Marshal(d)
}
