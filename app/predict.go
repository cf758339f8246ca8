package app

import (
	"context"
	"fmt"

	"github.com/goldtrace/goldtrace/judge"
	"github.com/goldtrace/goldtrace/trace"
)

// PredictRequest is one goldtrace predict run.
type PredictRequest struct {
	Gold string // NAME@vN or a dataset file
	// Tools replace the gold's tools of the same name (a what-if run).
	Tools     map[string]trace.Tool
	NewRunner func(ctx context.Context) (*judge.Runner, error)
	// Progress, when set, starts a progress report under label.
	Progress func(label string) (update func(done, total int), done func())
}

// ErrToolUnused is the error of a replacement tool no gold item offers.
type ErrToolUnused struct{ Tool, Gold string }

func (e *ErrToolUnused) Error() string {
	return fmt.Sprintf("tool %q is not available in any item of %s", e.Tool, e.Gold)
}

// Predict sends each gold item's input (its conversation and available
// tools, with req.Tools in place of the gold's of the same name) to the
// runner's model and returns the calls it made, item by item. Answers are
// cached by the runner.
func Predict(ctx context.Context, src GoldSource, req PredictRequest) ([]judge.Prediction, judge.Stats, error) {
	recs, err := ReadGold(ctx, src, req.Gold, 0)
	if err != nil {
		return nil, judge.Stats{}, fmt.Errorf("read gold: %w", err)
	}
	if len(recs) == 0 {
		return nil, judge.Stats{}, fmt.Errorf("read gold: %s has no records", req.Gold)
	}
	gc, err := GoldContexts(ctx, src, req.Gold)
	if err != nil {
		return nil, judge.Stats{}, fmt.Errorf("read gold: %w", err)
	}
	used := map[string]bool{}
	inputs := make([]judge.PredictInput, len(recs))
	for i := range recs {
		tools := recs[i].AvailableTools
		if req.Tools != nil {
			tools = append([]trace.Tool(nil), tools...)
			for k, t := range tools {
				if o, ok := req.Tools[t.Name]; ok {
					tools[k] = o
					used[t.Name] = true
				}
			}
		}
		inputs[i] = judge.PredictInput{ID: recs[i].ID, Messages: gc[recs[i].ID].Messages, Tools: tools}
	}
	for name := range req.Tools {
		if !used[name] {
			return nil, judge.Stats{}, &ErrToolUnused{Tool: name, Gold: req.Gold}
		}
	}
	recs, gc = nil, nil
	runner, err := req.NewRunner(ctx)
	if err != nil {
		return nil, judge.Stats{}, JudgeError(err)
	}
	done := func() {}
	if req.Progress != nil {
		runner.Progress, done = req.Progress("predicting")
	}
	preds, st, err := judge.Predict(ctx, runner, inputs)
	done()
	if err != nil {
		if ctx.Err() != nil {
			return nil, st, ErrInterrupted
		}
		return nil, st, JudgeError(err)
	}
	return preds, st, nil
}
