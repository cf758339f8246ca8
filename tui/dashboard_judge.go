package tui

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/goldtrace/goldtrace/judge"
	"github.com/goldtrace/goldtrace/store"
)

// judgeCalibration is the newest `goldtrace judge calibrate` run: how far
// an LLM judge agrees with the human gold, shown in the dashboard header.
type judgeCalibration struct {
	Gold, Kind, Model string
	judge.CalibrationSummary
}

// CalibrationAPI is what the dashboard reads of the judge calibrations.
type CalibrationAPI interface {
	JudgeCalibrations(ctx context.Context, limit int) ([]store.JudgeCalibration, error)
}

// loadCalibration reads the newest calibration run; nil when there is none.
func loadCalibration(ctx context.Context, api CalibrationAPI) (*judgeCalibration, error) {
	runs, err := api.JudgeCalibrations(ctx, 1)
	if err != nil || len(runs) == 0 {
		return nil, err
	}
	r := runs[0]
	c := &judgeCalibration{Gold: r.Gold, Kind: r.Kind, Model: r.Model}
	if err := json.Unmarshal(r.Summary, &c.CalibrationSummary); err != nil {
		return nil, fmt.Errorf("judge calibration of %s: %w", r.Gold, err)
	}
	return c, nil
}

// calibrationParts is the header's judge line: none without a calibration.
func calibrationParts(s *Styles, c *judgeCalibration) []string {
	if c == nil {
		return nil
	}
	pct := "n/a"
	if c.Agreement.Agreement != nil {
		pct = fmt.Sprintf("%.1f%%", *c.Agreement.Agreement*100)
	}
	kappa := "n/a"
	if c.Kappa != nil {
		kappa = fmt.Sprintf("%.2f", *c.Kappa)
	}
	parts := []string{
		s.Muted.Render("judge "+c.Kind+" ") + c.Model,
		pct + s.Muted.Render(" agree with "+c.Gold),
		s.Muted.Render("κ ") + kappa,
		s.Muted.Render("n ") + fmt.Sprint(c.Items),
	}
	if c.Partial {
		parts = append(parts, s.Muted.Render("partial"))
	}
	return parts
}
