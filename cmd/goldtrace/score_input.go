package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/score"
)

// goldSource is where the gold, predictions and traces a command grades
// come from: stored versions as the actor in effect may read them (the
// database is opened only for a NAME@vN), files, and stdin; progress on
// stderr when it is a terminal (cleared by doneReading).
func goldSource(cli *CLI) app.GoldSource {
	src := app.GoldSource{Stdin: cli.In, Remote: cli.remote,
		Versions: func(ctx context.Context, name string, version int) (io.ReadCloser, error) {
			be, who, err := cli.ActorCtx(ctx)
			if err != nil {
				return nil, err
			}
			return be.DatasetContent(ctx, who, name, version)
		}}
	if IsTerminal(cli.Err) {
		src.Progress = func(name string, n int) { fmt.Fprintf(cli.Err, "\rreading %s: %d lines\033[K", name, n) }
	}
	return src
}

// doneReading clears the progress line goldSource wrote.
func doneReading(cli *CLI) {
	if IsTerminal(cli.Err) {
		fmt.Fprint(cli.Err, "\r\033[K")
	}
}

// readScoreInput reads the gold cases and what to score against them
// (app.ReadScoreInput).
func readScoreInput(ctx context.Context, cli *CLI, f *scoreFlags) ([]score.Case, []score.Prediction, string, error) {
	in, err := app.ReadScoreInput(ctx, goldSource(cli), app.ScoreSource{Gold: f.gold, Pred: f.pred, PredFormat: f.predFormat, AllowUnknown: f.allowUnknown})
	doneReading(cli)
	if err != nil {
		return nil, nil, "", swapped(err)
	}
	if in.Unknown > 0 {
		fmt.Fprintf(cli.Err, "%s: ignored %d predictions for items not in the gold (--allow-unknown)\n", f.pred, in.Unknown)
	}
	return in.Cases, in.Preds, in.Source, nil
}

// swapped adds to a gold line read as a prediction, or the other way
// round, what the likely mistake is.
func swapped(err error) error {
	var wf *gold.WrongFileError
	if errors.As(err, &wf) && (wf.Is == gold.KindGold || wf.Is == gold.KindPrediction) {
		return fmt.Errorf("%w: are --gold and --pred swapped?", err)
	}
	return err
}
