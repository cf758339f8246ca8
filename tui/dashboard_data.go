package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/score"
	"github.com/goldtrace/goldtrace/store"
)

// cohortKey is the trace metadata key the dashboard lists items by.
const cohortKey = "cohort"

// dashboardData is one computation of the dashboard: the observed calls
// scored against the current gold, and the project's progress.
type dashboardData struct {
	Fingerprint string
	ComputedAt  time.Time
	Report      *score.Report
	// Items is parallel to Report.Items (sorted by id, as an export is).
	Items  []goldItem
	Status store.Status
}

// goldItem is what the dashboard keeps of one gold record to list it and
// explain its verdict.
type goldItem struct {
	ID         string
	TraceID    string
	Turn       int
	Cohort     string
	Status     string // agreed | adjudicated
	Expected   []score.ExpectedCall
	Acceptable [][]score.ExpectedCall
	Rationale  string
	Observed   []dataset.ObservedCall
}

// GoldRecords builds the gold records of the items selected by f exactly as
// goldtrace export writes them (store.GoldTraces, then dataset.BuildLines),
// read back as goldtrace score reads an export, sorted by id. The
// conversation (Input.Messages) is dropped: scoring never reads it.
func GoldRecords(ctx context.Context, st *store.Store, f store.GoldFilter) ([]dataset.Record, error) {
	tgs, err := st.GoldTraces(ctx, f)
	if err != nil {
		return nil, err
	}
	var recs []dataset.Record
	for _, tg := range tgs {
		lines, err := dataset.BuildLines(tg)
		if err != nil {
			return nil, fmt.Errorf("build gold records: %w", err)
		}
		for _, l := range lines {
			var r dataset.Record
			if err := json.Unmarshal(l.Bytes, &r); err != nil {
				return nil, fmt.Errorf("gold record %s: %w", l.ID, err)
			}
			r.Input.Messages = nil
			recs = append(recs, r)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].ID < recs[j].ID })
	return recs, nil
}

// ScoreObserved scores the records' observed calls against their gold, as
// goldtrace score does without --pred.
func ScoreObserved(recs []dataset.Record) *score.Report {
	cases := make([]score.Case, len(recs))
	preds := make([]score.Prediction, len(recs))
	for i := range recs {
		cases[i] = recs[i].ScoreCase()
		preds[i] = recs[i].ObservedPrediction()
	}
	return score.Score(cases, preds, score.Options{})
}

// computeDashboard reads the fingerprint first, so a change made while the
// rest is read shows up as a new fingerprint at the next poll.
func computeDashboard(ctx context.Context, st *store.Store, lead, batch string, now func() time.Time) (*dashboardData, error) {
	fp, err := st.GoldFingerprint(ctx)
	if err != nil {
		return nil, err
	}
	var f store.GoldFilter
	if batch != "" {
		f.Batches = []string{batch}
	}
	recs, err := GoldRecords(ctx, st, f)
	if err != nil {
		return nil, err
	}
	status, err := st.Status(ctx, store.StatusQuery{Batch: batch, As: lead})
	if err != nil {
		return nil, fmt.Errorf("read status: %w", err)
	}
	d := &dashboardData{Fingerprint: fp, ComputedAt: now(), Report: ScoreObserved(recs), Status: status,
		Items: make([]goldItem, len(recs))}
	for i := range recs {
		r := &recs[i]
		d.Items[i] = goldItem{ID: r.ID, TraceID: r.Input.Context.TraceID, Turn: r.Input.Context.Turn,
			Cohort: r.Input.Context.Metadata[cohortKey], Status: r.Provenance.Status,
			Expected: r.ExpectedCalls, Acceptable: r.Acceptable, Rationale: r.Rationale, Observed: r.ObservedCalls}
	}
	return d, nil
}

// cellItems lists the indexes of the items in one confusion cell.
func (d *dashboardData) cellItems(expected, predicted string) []int {
	var out []int
	for i, r := range d.Report.Items {
		if r.ExpectedTool == expected && r.PredictedTool == predicted {
			out = append(out, i)
		}
	}
	return out
}

// worstTools is the per-tool metrics, lowest exact_call first (ties: more
// items first, then name).
func (d *dashboardData) worstTools() []score.Group {
	out := append([]score.Group(nil), d.Report.PerTool...)
	val := func(g score.Group) float64 {
		if g.ExactCall == nil {
			return 2
		}
		return *g.ExactCall
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := val(out[i]), val(out[j])
		if a != b {
			return a < b
		}
		if out[i].Items != out[j].Items {
			return out[i].Items > out[j].Items
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// topErrorKind is the most frequent error kind of m ("" when none failed).
func topErrorKind(m score.Metrics) (score.ErrorKind, int) {
	var best score.ErrorKind
	n := 0
	for _, k := range score.ErrorKinds {
		if c := m.ErrorKinds[k]; c > n {
			best, n = k, c
		}
	}
	return best, n
}
