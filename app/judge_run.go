package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/goldtrace/goldtrace/judge"
	"github.com/goldtrace/goldtrace/score"
)

// Running an LLM judge (score --judge, judge calibrate) and a model
// (predict) over gold items.

// JudgeRun is an LLM judge ready to run and how its run reports.
type JudgeRun struct {
	// Judge is the judge (kind, template, samples); its Runner comes from
	// NewRunner when the run starts.
	Judge     *judge.Judge
	NewRunner func(ctx context.Context) (*judge.Runner, error)
	Model     string
	Endpoint  string  // the endpoint's host, as reports name it
	Threshold float64 // a score at or above counts as correct
	// All makes the args judge take every item with a call, not only
	// those whose tool is right but whose arguments differ.
	All bool
	// BestEffort keeps the deterministic report when the endpoint fails
	// (the failure is told to Warn and recorded in the report).
	BestEffort bool
	// MaxRequests is the request budget (0: none), named when it is spent.
	MaxRequests int
	// Progress, when set, starts a progress report under label and returns
	// its update and done funcs.
	Progress func(label string) (update func(done, total int), done func())
	// Warn, when set, is told what a run leaves out (one line each).
	Warn func(msg string)
}

// ErrInterrupted: the context ended during a judge or predict run. What
// was answered is cached (whole rows only); a rerun continues from there.
var ErrInterrupted = errors.New("interrupted: the answers so far are cached, run again to continue")

// JudgeError words a run's failure for the one-line error.
func JudgeError(err error) error {
	if errors.Is(err, judge.ErrFatal) {
		return fmt.Errorf("judge: %s", strings.TrimPrefix(err.Error(), judge.ErrFatal.Error()+": "))
	}
	return err
}

func (r *JudgeRun) warn(format string, args ...any) {
	if r.Warn != nil {
		r.Warn(fmt.Sprintf(format, args...))
	}
}

// start makes the judge's runner.
func (r *JudgeRun) start(ctx context.Context) error {
	runner, err := r.NewRunner(ctx)
	if err != nil {
		return err
	}
	r.Judge.Runner = runner
	return nil
}

// run runs the judge over inputs with a progress report under label; an
// interrupted run returns ErrInterrupted.
func (r *JudgeRun) run(ctx context.Context, inputs []*judge.Input, label string) ([]judge.Result, judge.Stats, error) {
	done := func() {}
	if r.Progress != nil {
		var update func(done, total int)
		update, done = r.Progress(label)
		r.Judge.Runner.Progress = update
	}
	res, st, err := r.Judge.Run(ctx, inputs)
	done()
	if err != nil && ctx.Err() != nil {
		return nil, st, ErrInterrupted
	}
	return res, st, err
}

// argKinds are the deterministic failures where the tool is right and only
// the arguments differ: the args judge's default selection.
var argKinds = []score.ErrorKind{score.KindMissingArg, score.KindUnexpectedArg, score.KindWrongType, score.KindWrongValue}

// selectForJudge says whether item i goes to the judge: the args judge takes
// the items whose tool is right but args differ (every item with a call with
// all), the others every item with a prediction.
func selectForJudge(kind judge.Kind, all bool, it *score.ItemResult, p score.Prediction) bool {
	if p.Missing {
		return false
	}
	if kind != judge.KindArgs {
		return true
	}
	if all {
		return len(p.Calls) > 0
	}
	return !it.Correct && it.ToolName && slices.Contains(argKinds, it.Kind)
}

// judgeInputs builds the judge's input for every selected item (nil for the
// others) and counts them.
func judgeInputs(kind judge.Kind, all bool, items []score.ItemResult, cases []score.Case, preds []score.Prediction, gc map[string]GoldContext) ([]*judge.Input, int) {
	inputs := make([]*judge.Input, len(cases))
	n := 0
	for i := range cases {
		if i >= len(items) || !selectForJudge(kind, all, &items[i], preds[i]) {
			continue
		}
		c := &cases[i]
		g := gc[c.ID]
		inputs[i] = &judge.Input{ID: c.ID, Messages: g.Messages, Tools: c.Tools, Expected: c.Expected,
			Acceptable: c.Acceptable, Rationale: g.Rationale, Calls: preds[i].Calls}
		n++
	}
	return inputs, n
}

// judgeReport runs the judge over a scored report and attaches its
// verdicts; with BestEffort an endpoint's failure is recorded in the
// report instead of failing.
func judgeReport(ctx context.Context, src GoldSource, run *JudgeRun, goldRef string, in *ScoreInput, report *score.Report) error {
	j := run.Judge
	summary := score.JudgeSummary{
		Kind: string(j.Kind), Model: run.Model, Endpoint: run.Endpoint, PromptSHA256: j.Template.SHA256,
		Samples: j.SamplesUsed(), Threshold: run.Threshold,
	}
	fail := func(err error) error {
		err = JudgeError(err)
		if !run.BestEffort {
			return err
		}
		msg := strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", " ; ")), " ")
		run.warn("warning: %s; the deterministic report is kept (--judge-best-effort)", msg)
		summary.Error = msg
		report.SetJudge(summary, nil)
		return nil
	}
	if err := run.start(ctx); err != nil {
		return fail(err)
	}
	gc, err := GoldContexts(ctx, src, goldRef)
	if err != nil {
		return fmt.Errorf("read gold: %w", err)
	}
	var inputs []*judge.Input
	inputs, summary.Selected = judgeInputs(j.Kind, run.All, report.Items, in.Cases, in.Preds, gc)
	res, st, err := run.run(ctx, inputs, "judging")
	if errors.Is(err, ErrInterrupted) {
		return err
	}
	if err != nil {
		return fail(err)
	}
	summary.Requests, summary.CacheHits, summary.Errors = st.Requests, st.CacheHits, st.Errors+st.Missing
	summary.Missing, summary.Skipped, summary.Partial = st.Missing, st.Skipped, st.Partial
	summary.Tokens = score.JudgeTokens(st.Tokens)
	judged := map[int]score.ItemJudge{}
	for i, r := range res {
		switch {
		case r.Judged:
			v := r.Verdict
			judged[i] = score.ItemJudge{JudgeScore: &v.Score, JudgeReason: &v.Reason}
		case r.Err != nil:
			judged[i] = score.ItemJudge{JudgeError: r.Err.Error()}
		}
	}
	report.SetJudge(summary, judged)
	if st.Partial {
		run.warn("judge: request budget spent (--judge-max-requests %d): %d of %d items judged, the judge numbers are partial",
			run.MaxRequests, report.Judge.Judged, summary.Selected)
	}
	if st.Missing > 0 {
		run.warn("judge: %d of %d items are not in the cache (--judge-offline)", st.Missing, summary.Selected)
	}
	return nil
}
