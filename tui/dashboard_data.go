package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/score"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
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

// GoldRecords builds the gold records of the items selected by f exactly as
// goldtrace export writes them (store.GoldTraces, then a dataset.Builder),
// and reads them back as goldtrace score reads an export: without the
// conversation, records with the same tools or metadata sharing one decoded
// copy. Sorted by id.
//
// Scoring never reads the conversation, so only its skeleton goes through
// the builder (roles and tool calls: the observed calls come from them); every
// scored field takes the export's own path.
func GoldRecords(ctx context.Context, st GoldAPI, f store.GoldFilter) ([]gold.Record, error) {
	return goldRecords(ctx, st, f, nil)
}

// goldRecordCache keeps the decoded lines of each trace with the gold
// answers they were built from: a refresh rebuilds only the traces whose
// answers changed (traces themselves never change once imported).
type goldRecordCache struct {
	mu      sync.Mutex
	byTrace map[string]cachedGold
}

type cachedGold struct {
	answers string // the answers, JSON-encoded
	lines   []gold.Record
}

func goldRecords(ctx context.Context, st GoldAPI, f store.GoldFilter, cache *goldRecordCache) ([]gold.Record, error) {
	tgs, err := st.GoldTraces(ctx, f)
	if err != nil {
		return nil, err
	}
	parts := make([][]gold.Record, len(tgs))
	keys := make([]string, len(tgs))
	var todo []int
	if cache != nil {
		cache.mu.Lock()
		defer cache.mu.Unlock()
	}
	for i, tg := range tgs {
		if cache == nil {
			todo = append(todo, i)
			continue
		}
		b, err := json.Marshal(tg.Answers)
		if err != nil {
			return nil, err
		}
		keys[i] = string(b)
		if c, ok := cache.byTrace[tg.Trace.ID]; ok && c.answers == keys[i] {
			parts[i] = c.lines
		} else {
			todo = append(todo, i)
		}
	}
	if err := buildGoldLines(ctx, tgs, todo, parts); err != nil {
		return nil, err
	}
	if cache != nil {
		cache.byTrace = make(map[string]cachedGold, len(tgs))
		for i, tg := range tgs {
			cache.byTrace[tg.Trace.ID] = cachedGold{answers: keys[i], lines: parts[i]}
		}
	}
	var recs []gold.Record
	for _, part := range parts {
		recs = append(recs, part...)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].ID < recs[j].ID })
	return recs, nil
}

// buildGoldLines fills parts[i] for each i in todo, spreading the traces
// over the CPUs (building canonicalises every trace's tools).
func buildGoldLines(ctx context.Context, tgs []dataset.TraceGold, todo []int, parts [][]gold.Record) error {
	errs := make([]error, len(todo))
	workers := min(runtime.GOMAXPROCS(0), max(len(todo)/64, 1))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, in := dataset.NewBuilder(), gold.NewInterner()
			for k := w; k < len(todo) && ctx.Err() == nil; k += workers {
				i := todo[k]
				tg, err := skeleton(tgs[i])
				if err == nil {
					parts[i], err = decodeGoldLines(b, in, tg)
				}
				errs[k] = err
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// skeleton is tg with its conversation cut to what the gold records score:
// messages up to the last gold turn, with their roles and tool calls.
func skeleton(tg dataset.TraceGold) (dataset.TraceGold, error) {
	msgs := tg.Trace.Messages
	if msgs == nil && tg.MessagesJSON != nil {
		if err := json.Unmarshal(tg.MessagesJSON, &msgs); err != nil {
			return tg, fmt.Errorf("trace %s: messages: %w", tg.Trace.ID, err)
		}
	}
	last := 0
	for _, a := range tg.Answers {
		last = max(last, a.Turn)
	}
	msgs = msgs[:min(last+1, len(msgs))]
	out := make([]trace.Message, len(msgs))
	for i, m := range msgs {
		out[i] = trace.Message{Role: m.Role, ToolCalls: m.ToolCalls}
	}
	tg.Trace.Messages, tg.MessagesJSON = out, nil
	return tg, nil
}

// decodeGoldLines builds the gold records of one trace and reads them back
// as a file of them would be read (records of one trace share their
// decoded tools through in).
func decodeGoldLines(b *dataset.Builder, in *gold.Interner, tg dataset.TraceGold) ([]gold.Record, error) {
	lines, err := b.Lines(tg)
	if err != nil {
		return nil, fmt.Errorf("build gold records: %w", err)
	}
	out := make([]gold.Record, len(lines))
	for i, l := range lines {
		if out[i], err = gold.ParseRecord(l.Bytes(), in, gold.FieldObserved|gold.FieldNotes); err != nil {
			return nil, fmt.Errorf("gold record %s: %w", l.ID, err)
		}
	}
	return out, nil
}

// ScoreObserved scores the records' observed calls against their gold, as
// goldtrace score does without --pred.
func ScoreObserved(recs []gold.Record) *score.Report {
	return scoreObserved(recs, score.ProfileDefault)
}

// scoreObserved is ScoreObserved under a profile, as goldtrace score
// --profile does.
func scoreObserved(recs []gold.Record, profile score.Profile) *score.Report {
	cases := make([]score.Case, len(recs))
	preds := make([]score.Prediction, len(recs))
	for i := range recs {
		cases[i] = score.CaseOf(&recs[i])
		preds[i] = score.ObservedOf(&recs[i])
	}
	return score.Score(cases, preds, score.Options{Profile: profile})
}

// computeDashboard scores the gold under profile. It reads the fingerprint
// first, so a change made while the rest is read shows up as a new
// fingerprint at the next poll.
func computeDashboard(ctx context.Context, st DashboardAPI, lead, batch string, profile score.Profile, now func() time.Time, cache *goldRecordCache) (*dashboardData, error) {
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
	recs, err := goldRecords(ctx, st, f, cache)
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
	d := &dashboardData{Fingerprint: fp, ComputedAt: now(), Report: scoreObserved(recs, profile), Status: status,
		Items: make([]goldItem, len(recs)), Sampled: sampled, Labeling: labeling}
	d.WorstTools = d.Report.WorstTools()
	if d.Calibration, err = loadCalibration(ctx, st); err != nil {
		return nil, err
	}
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
