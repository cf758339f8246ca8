package app

import (
	"context"

	"github.com/goldtrace/goldtrace/store"
)

// JudgeCalibrations is the newest LLM judge calibration run of each (gold,
// judge, model), newest first, at most limit: part of the lead's dashboard.
func (s *Session) JudgeCalibrations(ctx context.Context, limit int) ([]store.JudgeCalibration, error) {
	if _, err := s.app.authorize(ctx, s.actor, ActDashboard, ""); err != nil {
		return nil, err
	}
	return s.app.st.JudgeCalibrations(ctx, limit)
}
