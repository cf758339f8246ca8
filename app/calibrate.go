package app

import (
	"context"
	"fmt"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/judge"
	"github.com/goldtrace/goldtrace/score"
)

// CalibrationReport is judge calibrate's outcome (and its JSON output).
type CalibrationReport struct {
	Gold         string      `json:"gold"`
	Predictions  string      `json:"predictions"`
	Kind         string      `json:"kind"`
	Model        string      `json:"model"`
	Endpoint     string      `json:"endpoint"`
	PromptSHA256 string      `json:"prompt_sha256"`
	Samples      int         `json:"samples"`
	Threshold    float64     `json:"threshold"`
	Stats        judge.Stats `json:"run"`
	judge.Calibration
	Items []judge.Pair `json:"items"`
}

// Calibrate runs a judge on every item whose correctness the gold settles
// — the observed calls, or the predictions file pred — and compares its
// verdict (score ≥ threshold) with the human one (score's deterministic
// verdict against the gold): agreement, kappa, confusion, per tool.
func Calibrate(ctx context.Context, src GoldSource, goldRef, pred string, run *JudgeRun) (*CalibrationReport, error) {
	recs, err := ReadGold(ctx, src, goldRef, gold.FieldObserved)
	if err != nil {
		return nil, fmt.Errorf("read gold: %w", err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("read gold: %s has no records", goldRef)
	}
	cases := make([]score.Case, len(recs))
	preds := make([]score.Prediction, len(recs))
	for i := range recs {
		cases[i] = score.CaseOf(&recs[i])
		preds[i] = score.ObservedOf(&recs[i])
	}
	recs = nil
	source := "observed_calls"
	if pred != "" {
		source = pred
		if preds, _, err = ReadPredictions(ctx, src, pred, cases, false); err != nil {
			return nil, fmt.Errorf("read predictions: %w", err)
		}
	}
	human := score.Score(cases, preds, score.Options{})
	if err := run.start(ctx); err != nil {
		return nil, JudgeError(err)
	}
	gc, err := GoldContexts(ctx, src, goldRef)
	if err != nil {
		return nil, fmt.Errorf("read gold: %w", err)
	}
	j := run.Judge
	// the args judge too is asked about every call: calibration needs both classes
	inputs, _ := judgeInputs(j.Kind, true, human.Items, cases, preds, gc)
	res, st, err := run.run(ctx, inputs, "calibrating")
	if err != nil {
		return nil, JudgeError(err)
	}
	rep := &CalibrationReport{
		Gold: goldRef, Predictions: source, Kind: string(j.Kind), Model: run.Model, Endpoint: run.Endpoint,
		PromptSHA256: j.Template.SHA256, Samples: j.SamplesUsed(), Threshold: run.Threshold, Stats: st,
		Items: []judge.Pair{},
	}
	for i, r := range res {
		if inputs[i] == nil || r.Skipped {
			continue
		}
		it := &human.Items[i]
		p := judge.Pair{ID: it.ID, Tool: it.ExpectedTool, Human: it.Correct}
		if r.Judged {
			ok := r.Verdict.Score >= run.Threshold
			s := r.Verdict.Score
			p.Judge, p.Score, p.Reason = &ok, &s, r.Verdict.Reason
		} else if r.Err != nil {
			p.Error = r.Err.Error()
		}
		rep.Items = append(rep.Items, p)
	}
	rep.Calibration = judge.Calibrate(rep.Items)
	if st.Partial {
		run.warn("judge: request budget spent (--judge-max-requests %d): %d items not judged, the calibration is partial", run.MaxRequests, st.Skipped)
	}
	return rep, nil
}

// CalibrationRunOf is the run a report records for the dashboard.
func CalibrationRunOf(rep *CalibrationReport) CalibrationRun {
	return CalibrationRun{
		Gold: rep.Gold, Kind: rep.Kind, Model: rep.Model, Endpoint: rep.Endpoint, PromptSHA256: rep.PromptSHA256,
		Summary: judge.CalibrationSummary{Calibration: rep.Calibration, Threshold: rep.Threshold, Partial: rep.Stats.Partial},
	}
}
