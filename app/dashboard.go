package app

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/judge"
	"github.com/goldtrace/goldtrace/score"
)

// The lead's dashboard, as numbers: the observed calls of the current gold
// scored as goldtrace score scores an export of it, progress, the newest
// judge calibration and the model's accuracy per batch. tui draws it; what
// is computed here is what the screen shows, so the screen needs neither
// the scorer nor the store.

// Dashboard is one computation of the dashboard.
type Dashboard struct {
	Fingerprint string
	ComputedAt  time.Time
	// Profile is the scoring profile's name (ProfileNames).
	Profile string
	Overall DashboardMetrics
	// Tools are the metrics per expected tool, lowest exact_call first.
	Tools     []DashboardTool
	Confusion Confusion
	// Items are the gold items, sorted by id (as an export is), each with
	// its verdict.
	Items  []DashboardItem
	Status Status
	// Sampled and Labeling split the open items: none of their labels in
	// yet, or some.
	Sampled, Labeling int
	// Calibration is the newest LLM judge calibration (nil: none).
	Calibration *DashboardCalibration
	// Batches is the model's observed accuracy per batch, in batch order;
	// batches without gold items are left out.
	Batches []BatchAccuracy
}

// DashboardMetrics are the header's numbers, named as goldtrace score
// --min takes them (nil: not defined on these items).
type DashboardMetrics struct {
	Items                                int
	ExactCall, ToolName, ArgsValue, F1   *float64
	NoToolAccuracy, HallucinatedToolRate *float64
	// Seed are a seed system's own metrics under its profile.
	Seed []NamedRate
}

// NamedRate is one named metric.
type NamedRate struct {
	Name  string
	Value *float64
}

// DashboardTool is one expected tool's row: its items, rates and most
// frequent error kind (TopError "" when none of its items failed).
type DashboardTool struct {
	Name                           string
	Items                          int
	ExactCall, ToolName, ArgsValue *float64
	TopError                       string
	TopErrorCount                  int
}

// Confusion counts gold first tools (rows) against observed first tools
// (columns). Labels are the tool names sorted, then ClassNone, then
// ClassUnknown when present.
type Confusion struct {
	Labels []string
	Cells  []ConfusionCell
}

// ConfusionCell is one non-empty cell.
type ConfusionCell struct {
	Expected, Predicted string
	Count               int
}

// The confusion matrix's classes that are not tools.
const (
	ClassNone    = score.ClassNone    // no tool call
	ClassUnknown = score.ClassUnknown // a tool not among the available ones
)

// DashboardItem is one gold item: what the dashboard lists of it and the
// scorer's verdict on its observed calls.
type DashboardItem struct {
	ID, TraceID string
	Turn        int
	Cohort      string
	Status      string // agreed | adjudicated
	Expected    []gold.ExpectedCall
	Acceptable  [][]gold.ExpectedCall
	Rationale   string
	Observed    []gold.ObservedCall

	// Correct: the observed calls match the gold (exact_call); otherwise
	// Kind is the error kind and Message explains it.
	Correct       bool
	Kind, Message string
	// ExpectedTool and PredictedTool are the item's confusion cell.
	ExpectedTool, PredictedTool string
	// List is the gold list scored against: 0 = Expected, i =
	// Acceptable[i-1].
	List int
}

// DashboardCalibration is the newest goldtrace judge calibrate run: how far
// an LLM judge agrees with the human gold.
type DashboardCalibration struct {
	Gold, Kind, Model string
	judge.CalibrationSummary
}

// BatchAccuracy is, for one batch, how often the production model's
// observed calls were right (exact_call) on the batch's gold items: a batch
// drawn where runs disagree should hold more of the model's mistakes than
// a random one, and this shows the lead what the ranking bought.
type BatchAccuracy struct {
	Name    string
	By      string // "" random, "disagreement", "stale", "tool", "meta.X"
	Gold    int    // the batch's items that are gold
	Correct int
}

// ProfileNames are the scoring profiles, in the order the dashboard steps
// through them (the first is goldtrace's own).
var ProfileNames = score.ProfileNames

// Two profiles the dashboard explains by name: goldtrace's own matching,
// and BFCL's checker.
var (
	ProfileDefault = score.ProfileDefault.Name
	ProfileBFCL    = score.ProfileBFCL.Name
)

// FormatRate writes a rate as reports do ("n/a" for nil).
func FormatRate(v *float64) string { return score.FormatRate(v) }

// cohortKey is the trace metadata key the dashboard lists items by.
const cohortKey = "cohort"

// Dashboard computes the dashboard of batch ("" all) for the session's
// lead, the gold scored under the named profile. It reads the fingerprint
// first, so a change made while the rest is read shows up as a new
// fingerprint at the next poll. cache keeps the gold records between
// polls.
func (s *Session) Dashboard(ctx context.Context, batch, profileName string, now time.Time, cache *GoldCache) (_ *Dashboard, err error) {
	defer s.shown(&err)
	profile, ok := score.ProfileByName(profileName)
	if !ok {
		return nil, fmt.Errorf("no scoring profile %q", profileName)
	}
	fp, err := s.GoldFingerprint(ctx)
	if err != nil {
		return nil, err
	}
	var f GoldFilter
	if batch != "" {
		f.Batches = []string{batch}
	}
	// Status and the gold are independent reads: run them side by side.
	var status Status
	statusErr := make(chan error, 1)
	go func() {
		var err error
		status, err = s.Status(ctx, StatusQuery{Batch: batch, As: s.actor.Name})
		statusErr <- err
	}()
	recs, report, err := s.ScoreObserved(ctx, f, profile, cache)
	if serr := <-statusErr; serr != nil && err == nil {
		err = fmt.Errorf("read status: %w", serr)
	}
	if err != nil {
		return nil, err
	}
	d := &Dashboard{Fingerprint: fp, ComputedAt: now, Profile: report.Profile, Status: status,
		Overall: dashboardMetrics(report.Overall), Confusion: confusionOf(report.Confusion)}
	if d.Sampled, d.Labeling, err = s.OpenItemCounts(ctx, batch); err != nil {
		return nil, err
	}
	for _, g := range report.WorstTools() {
		kind, n := topErrorKind(g.Metrics)
		d.Tools = append(d.Tools, DashboardTool{Name: g.Name, Items: g.Items, ExactCall: g.ExactCall,
			ToolName: g.ToolName, ArgsValue: g.ArgsValue, TopError: string(kind), TopErrorCount: n})
	}
	if d.Calibration, err = s.newestCalibration(ctx); err != nil {
		return nil, err
	}
	batches, err := s.BatchSamples(ctx)
	if err != nil {
		return nil, fmt.Errorf("read batches: %w", err)
	}
	d.Batches = batchAccuracies(batches, report.Items)
	d.Items = make([]DashboardItem, len(recs))
	for i := range recs {
		r, res := &recs[i], &report.Items[i]
		d.Items[i] = DashboardItem{ID: r.ID, TraceID: r.Input.Context.TraceID, Turn: r.Input.Context.Turn,
			Cohort: r.Input.Context.Metadata[cohortKey], Status: r.Provenance.Status,
			Expected: r.ExpectedCalls, Acceptable: r.Acceptable, Rationale: r.Rationale, Observed: r.ObservedCalls,
			Correct: res.Correct, Kind: string(res.Kind), Message: res.Message,
			ExpectedTool: res.ExpectedTool, PredictedTool: res.PredictedTool, List: res.List}
	}
	return d, nil
}

func dashboardMetrics(m score.Metrics) DashboardMetrics {
	out := DashboardMetrics{Items: m.Items, ExactCall: m.ExactCall, ToolName: m.ToolName, ArgsValue: m.ArgsValue,
		F1: m.F1, NoToolAccuracy: m.NoToolAccuracy, HallucinatedToolRate: m.HallucinatedToolRate}
	for _, sr := range m.Seed {
		out.Seed = append(out.Seed, NamedRate{Name: sr.Name, Value: sr.Value})
	}
	return out
}

func confusionOf(c score.Confusion) Confusion {
	out := Confusion{Labels: c.Labels, Cells: make([]ConfusionCell, len(c.Cells))}
	for i, cell := range c.Cells {
		out.Cells[i] = ConfusionCell{Expected: cell.Expected, Predicted: cell.Predicted, Count: cell.Count}
	}
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

// newestCalibration reads the newest calibration run; nil when there is
// none.
func (s *Session) newestCalibration(ctx context.Context) (*DashboardCalibration, error) {
	runs, err := s.JudgeCalibrations(ctx, 1)
	if err != nil || len(runs) == 0 {
		return nil, err
	}
	r := runs[0]
	c := &DashboardCalibration{Gold: r.Gold, Kind: r.Kind, Model: r.Model}
	if err := json.Unmarshal(r.Summary, &c.CalibrationSummary); err != nil {
		return nil, fmt.Errorf("judge calibration of %s: %w", r.Gold, err)
	}
	return c, nil
}

// batchAccuracies scores the report's items per batch, in batch order;
// batches without gold items are left out.
func batchAccuracies(batches []BatchSample, items []score.ItemResult) []BatchAccuracy {
	correct := make(map[string]bool, len(items))
	for _, r := range items {
		correct[r.ID] = r.Correct
	}
	var out []BatchAccuracy
	for _, b := range batches {
		a := BatchAccuracy{Name: b.Name, By: b.By}
		for _, id := range b.Items {
			ok, isGold := correct[id]
			if !isGold {
				continue
			}
			a.Gold++
			if ok {
				a.Correct++
			}
		}
		if a.Gold > 0 {
			out = append(out, a)
		}
	}
	return out
}

// CellItems lists the indexes of the items in one confusion cell.
func (d *Dashboard) CellItems(expected, predicted string) []int {
	var out []int
	for i, r := range d.Items {
		if r.ExpectedTool == expected && r.PredictedTool == predicted {
			out = append(out, i)
		}
	}
	return out
}

// ToolItems lists the indexes of the items whose gold tool is tool,
// failing ones first (each group in id order).
func (d *Dashboard) ToolItems(tool string) []int {
	var failing, passing []int
	for i, r := range d.Items {
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
