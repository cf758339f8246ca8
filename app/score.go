package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/goldtrace/goldtrace/score"
)

// ScoreRequest is one goldtrace score run.
type ScoreRequest struct {
	ScoreSource
	// AllowMissing scores gold items without a prediction as no call
	// (counted in every report) instead of failing.
	AllowMissing bool
	Options      score.Options // profile, cohorts
	Gates        []score.Gate
	// MinSupport: per-tool gates and baseline comparisons skip tools and
	// cohorts with fewer items.
	MinSupport int
	// Baseline, when set, fails every metric that dropped by more than
	// MaxDrop against it.
	Baseline *score.Report
	MaxDrop  float64
	// Judge, when set, grades the scored items with an LLM judge before the
	// gates (its judge_score may be gated).
	Judge *JudgeRun
}

// Score grades a model run (or the gold's observed calls) against a gold
// dataset: reads both (ReadScoreInput), scores, runs the judge, applies the
// gates and the baseline. The report says whether it Passed; unknown
// predictions skipped (AllowUnknown) are told to warn.
func Score(ctx context.Context, src GoldSource, req ScoreRequest, warn func(msg string)) (*score.Report, error) {
	in, err := ReadScoreInput(ctx, src, req.ScoreSource)
	if err != nil {
		return nil, err
	}
	if in.Unknown > 0 && warn != nil {
		warn(fmt.Sprintf("%s: ignored %d predictions for items not in the gold (--allow-unknown)", req.Pred, in.Unknown))
	}
	if req.Pred != "" {
		if err := checkMissing(req.Pred, in.Cases, in.Preds, req.AllowMissing); err != nil {
			return nil, err
		}
	}
	if w := score.CompareCatalogues(in.Cases, in.Preds).Warning(); w != "" && warn != nil {
		warn(w)
	}
	report := score.Score(in.Cases, in.Preds, req.Options)
	report.Gold, report.Predictions = req.Gold, in.Source
	if req.Judge != nil {
		if err := judgeReport(ctx, src, req.Judge, req.Gold, &in, report); err != nil {
			return nil, err
		}
	}
	report.ApplyGates(req.Gates, req.MinSupport)
	if req.Baseline != nil {
		report.CompareBaseline(req.Baseline, req.MaxDrop, req.MinSupport)
	}
	return report, nil
}

// checkMissing refuses predictions that leave gold items without a line
// (a truncated file would score every missing no-call item as correct),
// unless allowed: then they are scored as no call and every report counts
// them.
func checkMissing(pred string, cases []score.Case, preds []score.Prediction, allowed bool) error {
	var missing []string
	for i := range preds {
		if preds[i].Missing {
			missing = append(missing, cases[i].ID)
		}
	}
	if len(missing) == 0 || allowed {
		return nil
	}
	first := missing[:min(3, len(missing))]
	more := ""
	if len(missing) > len(first) {
		more = ", …"
	}
	return fmt.Errorf("%s: no prediction for %d of %d gold items (first: %s%s); a truncated run? --allow-missing scores them as no call",
		pred, len(missing), len(cases), strings.Join(first, ", "), more)
}
