package tui

import (
	"context"
	"fmt"
	"time"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/gold"
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
	// WorstTools is Report.PerTool, lowest exact_call first (Report.WorstTools),
	// sorted once here rather than on every frame.
	WorstTools []score.Group
	// Sampled and Labeling split the open items: none of their labels in
	// yet, or some.
	Sampled, Labeling int
	// Calibration is the newest LLM judge calibration (dashboard_judge.go).
	Calibration *judgeCalibration
	// Batches is the model's observed accuracy per batch
	// (dashboard_batches.go).
	Batches []batchAccuracy
}

// goldItem is what the dashboard keeps of one gold record to list it and
// explain its verdict.
type goldItem struct {
	ID         string
	TraceID    string
	Turn       int
	Cohort     string
	Status     string // agreed | adjudicated
	Expected   []gold.ExpectedCall
	Acceptable [][]gold.ExpectedCall
	Rationale  string
	Observed   []gold.ObservedCall
}

// computeDashboard scores the gold under profile. It reads the fingerprint
// first, so a change made while the rest is read shows up as a new
// fingerprint at the next poll.
func computeDashboard(ctx context.Context, st DashboardAPI, lead, batch string, profile score.Profile, now func() time.Time, cache *app.GoldCache) (*dashboardData, error) {
	fp, err := st.GoldFingerprint(ctx)
	if err != nil {
		return nil, err
	}
	var f store.GoldFilter
	if batch != "" {
		f.Batches = []string{batch}
	}
	// Status and the gold are independent reads: run them side by side.
	var status store.Status
	statusErr := make(chan error, 1)
	go func() {
		var err error
		status, err = st.Status(ctx, store.StatusQuery{Batch: batch, As: lead})
		statusErr <- err
	}()
	recs, report, err := st.ScoreObserved(ctx, f, profile, cache)
	if serr := <-statusErr; serr != nil && err == nil {
		err = fmt.Errorf("read status: %w", serr)
	}
	if err != nil {
		return nil, err
	}
	sampled, labeling, err := st.OpenItemCounts(ctx, batch)
	if err != nil {
		return nil, err
	}
	d := &dashboardData{Fingerprint: fp, ComputedAt: now(), Report: report, Status: status,
		Items: make([]goldItem, len(recs)), Sampled: sampled, Labeling: labeling}
	d.WorstTools = d.Report.WorstTools()
	if d.Calibration, err = loadCalibration(ctx, st); err != nil {
		return nil, err
	}
	batches, err := st.BatchSamples(ctx)
	if err != nil {
		return nil, fmt.Errorf("read batches: %w", err)
	}
	d.Batches = batchAccuracies(batches, d.Report.Items)
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

// toolItems lists the indexes of the items whose gold tool is tool,
// failing ones first (each group in id order).
func (d *dashboardData) toolItems(tool string) []int {
	var failing, passing []int
	for i, r := range d.Report.Items {
		switch {
		case r.ExpectedTool != tool:
		case r.Correct:
			passing = append(passing, i)
		default:
			failing = append(failing, i)
		}
	}
	return append(failing, passing...)
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
