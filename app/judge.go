package app

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/goldtrace/goldtrace/judge"
	"github.com/goldtrace/goldtrace/store"
)

// JudgeCalibrations is the newest LLM judge calibration run of each (gold,
// judge, model), newest first, at most limit: part of the lead's dashboard.
func (s *Session) JudgeCalibrations(ctx context.Context, limit int) (_ []store.JudgeCalibration, err error) {
	defer s.shown(&err)
	if _, err := s.app.authorize(ctx, s.actor, ActDashboard, ""); err != nil {
		return nil, err
	}
	return s.app.st.JudgeCalibrations(ctx, limit)
}

// CalibrationRun is one `goldtrace judge calibrate` run as the dashboard
// keeps it: which judge, against which gold, and its summary.
type CalibrationRun struct {
	Gold, Kind, Model, Endpoint, PromptSHA256 string
	Summary                                   judge.CalibrationSummary
}

// RecordCalibration keeps a calibration run for the lead's dashboard. It is
// part of scoring against a dataset version or file (the run judged calls
// the gold settles), so it is open to whoever may do that; it is audited.
// A run that judged no item is not kept.
func (a *App) RecordCalibration(ctx context.Context, actor Actor, run CalibrationRun) error {
	object := fmt.Sprintf("judge calibration %s %s against %s", run.Kind, run.Model, run.Gold)
	actor, err := a.authorize(ctx, actor, ActScoreDataset, object)
	if err != nil {
		return err
	}
	if run.Summary.Items == 0 {
		return nil
	}
	summary, err := json.Marshal(run.Summary)
	if err != nil {
		return err
	}
	return a.actErr(ctx, actor, ActScoreDataset, object, func(ctx context.Context) error {
		return a.st.AddJudgeCalibration(ctx, store.JudgeCalibration{
			Gold: run.Gold, Kind: run.Kind, Model: run.Model, Endpoint: run.Endpoint,
			PromptSHA256: run.PromptSHA256, Summary: summary,
		})
	})
}

// JudgeCache is the LLM judges' answer cache in the project database
// (judge.Cache). On a read-only database answers are used, not kept.
type JudgeCache struct{ st *store.Store }

// JudgeCache is the judge cache for actor: judges run beside scoring, so it
// is open to whoever may score against a dataset version. Reading and
// filling the cache is not audited (the run it serves is).
func (a *App) JudgeCache(ctx context.Context, actor Actor) (JudgeCache, error) {
	if _, err := a.authorize(ctx, actor, ActScoreDataset, "judge cache"); err != nil {
		return JudgeCache{}, err
	}
	return JudgeCache{a.st}, nil
}

// Get returns the cached answer for k.
func (c JudgeCache) Get(ctx context.Context, k judge.CacheKey) ([]byte, bool, error) {
	return c.st.JudgeVerdict(ctx, store.JudgeKey(k))
}

// Put keeps an answer (nothing on a read-only database).
func (c JudgeCache) Put(ctx context.Context, k judge.CacheKey, v []byte) error {
	if c.st.ReadOnly() {
		return nil
	}
	return c.st.PutJudgeVerdict(ctx, store.JudgeKey(k), v)
}

// Kept reports whether answers put are kept (the database is writable).
func (c JudgeCache) Kept() bool { return !c.st.ReadOnly() }
