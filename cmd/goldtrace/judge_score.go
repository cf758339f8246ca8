package main

import (
	"context"
	"errors"
	"fmt"
	"slices"

	gapp "github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/judge"
	"github.com/goldtrace/goldtrace/score"
)

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

// scoreJudge runs --judge over a scored report and attaches its verdicts
// (score.go calls it before the gates). Without --judge it only refuses
// judge flags and gates that need one.
func scoreJudge(ctx context.Context, app *App, f *judgeFlags, gold string, cases []score.Case, preds []score.Prediction, report *score.Report, gates []score.Gate) error {
	if f.kind == "" {
		for _, g := range gates {
			if g.Metric == score.JudgeScore {
				return errors.New("--min judge_score needs --judge args|selection|quality")
			}
		}
		if f.model != "" {
			return errors.New("--judge-model given without --judge args|selection|quality")
		}
		return nil
	}
	j, err := f.setup()
	if err != nil {
		return err
	}
	summary := score.JudgeSummary{
		Kind: string(j.Kind), Model: f.model, Endpoint: hostOf(f.url), PromptSHA256: j.Template.SHA256,
		Samples: j.SamplesUsed(), Threshold: f.threshold,
	}
	fail := func(err error) error {
		err = judgeError(err)
		if !f.bestEffort {
			return err
		}
		fmt.Fprintf(app.Err, "warning: %s; the deterministic report is kept (--judge-best-effort)\n", oneLine(err.Error()))
		summary.Error = oneLine(err.Error())
		report.SetJudge(summary, nil)
		return nil
	}
	runner, err := f.runner(ctx, app, "judge-")
	if err != nil {
		return fail(err)
	}
	j.Runner = runner
	gc, err := gapp.GoldContexts(ctx, goldSource(app), gold)
	doneReading(app)
	if err != nil {
		return fmt.Errorf("read gold: %w", err)
	}
	var inputs []*judge.Input
	inputs, summary.Selected = judgeInputs(j.Kind, f.all, report.Items, cases, preds, gc)
	res, st, err := runJudge(ctx, app, j, inputs, "judging")
	if errors.Is(err, errInterrupted) {
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
		fmt.Fprintf(app.Err, "judge: request budget spent (--judge-max-requests %d): %d of %d items judged, the judge numbers are partial\n",
			f.maxRequests, report.Judge.Judged, summary.Selected)
	}
	if st.Missing > 0 {
		fmt.Fprintf(app.Err, "judge: %d of %d items are not in the cache (--judge-offline)\n", st.Missing, summary.Selected)
	}
	return nil
}
