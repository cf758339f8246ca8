package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/gold"
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

// swapped adds to a gold line read as a prediction, or the other way
// round, what the likely mistake is.
func swapped(err error) error {
	var wf *gold.WrongFileError
	if errors.As(err, &wf) && (wf.Is == gold.KindGold || wf.Is == gold.KindPrediction) {
		return fmt.Errorf("%w: are --gold and --pred swapped?", err)
	}
	return err
}
