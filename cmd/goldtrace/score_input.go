package main

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/internal/fserr"
	"github.com/goldtrace/goldtrace/score"
	"github.com/goldtrace/goldtrace/trace"
)

// readScoreInput reads the gold cases and what to score against them: the
// predictions file (in parallel, by the score package's reader), the
// traces of --pred-format matched by input hash, or the gold's own
// observed_calls.
func readScoreInput(ctx context.Context, app *App, f *scoreFlags) ([]score.Case, []score.Prediction, string, error) {
	if f.predFormat != "" {
		return readTraceScoreInput(ctx, app, f)
	}
	progress := func(name string) score.ReadOptions {
		if !IsTerminal(app.Err) {
			return score.ReadOptions{}
		}
		return score.ReadOptions{Progress: func(n int) { fmt.Fprintf(app.Err, "\rreading %s: %d lines\033[K", name, n) }}
	}
	name, in, closeIn, err := openGold(ctx, app, f.gold)
	if err != nil {
		return nil, nil, "", fmt.Errorf("read gold: %w", err)
	}
	g, err := score.ReadGold(ctx, in, name, score.GoldOptions{ReadOptions: progress(name), Observed: f.pred == ""})
	closeIn()
	if err != nil {
		return nil, nil, "", fmt.Errorf("read gold: %w", err)
	}
	if len(g.Cases) == 0 {
		return nil, nil, "", fmt.Errorf("read gold: %s has no records", f.gold)
	}
	if f.pred == "" {
		return g.Cases, g.Observed, "observed_calls", nil
	}
	in, closeIn, err = openInput(app, f.pred)
	if err != nil {
		return nil, nil, "", fmt.Errorf("read predictions: %w", err)
	}
	defer closeIn()
	preds, unknown, err := score.ReadPredictions(ctx, in, f.pred, g.Cases, score.PredictionOptions{ReadOptions: progress(f.pred), AllowUnknown: f.allowUnknown})
	if err != nil {
		return nil, nil, "", fmt.Errorf("read predictions: %w", err)
	}
	if IsTerminal(app.Err) {
		fmt.Fprint(app.Err, "\r\033[K")
	}
	if unknown > 0 {
		fmt.Fprintf(app.Err, "%s: ignored %d predictions for items not in the gold (--allow-unknown)\n", f.pred, unknown)
	}
	return g.Cases, preds, f.pred, nil
}

// readTraceScoreInput reads the gold with its input hashes and the
// predictions as traces (--pred-format), matched by input hash.
func readTraceScoreInput(ctx context.Context, app *App, f *scoreFlags) ([]score.Case, []score.Prediction, string, error) {
	recs, hashes, err := loadGoldRecords(ctx, app, f.gold, 0, true)
	if err != nil {
		return nil, nil, "", fmt.Errorf("read gold: %w", err)
	}
	if len(recs) == 0 {
		return nil, nil, "", fmt.Errorf("read gold: %s has no records", f.gold)
	}
	cases := make([]score.Case, len(recs))
	for i := range recs {
		cases[i] = score.CaseOf(&recs[i])
	}
	preds, err := loadTracePredictions(app, f.pred, f.predFormat, hashes)
	if err != nil {
		return nil, nil, "", fmt.Errorf("read predictions: %w", err)
	}
	return cases, preds, f.pred, nil
}

// loadGold reads the gold records named by ref: a dataset JSONL file (.gz
// accepted, "-" for stdin) or NAME@vN from the store, with the parts
// fields names (gold.Read). Records with identical available_tools or
// metadata share one copy, so memory stays flat on large datasets.
func loadGold(ctx context.Context, app *App, ref string, fields gold.Fields) ([]gold.Record, error) {
	recs, _, err := loadGoldRecords(ctx, app, ref, fields, false)
	return recs, err
}

// loadGoldRecords is loadGold; withHashes also returns each record's input
// hash (sha256 of its context and tools, as trace.InputHash computes it),
// reading the conversations for it and keeping none of them.
func loadGoldRecords(ctx context.Context, app *App, ref string, fields gold.Fields, withHashes bool) ([]gold.Record, []string, error) {
	name, in, closeIn, err := openGold(ctx, app, ref)
	if err != nil {
		return nil, nil, err
	}
	defer closeIn()
	report, done := linesRead(app, name)
	defer done()
	if withHashes {
		fields |= gold.FieldMessages
	}
	var recs []gold.Record
	var hashes []string
	err = gold.Read(ctx, in, name, gold.ReadOptions{Fields: fields, Progress: report}, func(_ int, r *gold.Record) error {
		if withHashes {
			hashes = append(hashes, trace.InputHash(r.Input.Messages, r.AvailableTools))
			r.Input.Messages = nil
		}
		recs = append(recs, *r)
		return nil
	})
	return recs, hashes, err
}

// openGold opens a gold file, or the stored version when ref is NAME@vN and
// no file of that name exists. name is what input errors cite.
func openGold(ctx context.Context, app *App, ref string) (name string, in io.Reader, closeIn func(), err error) {
	dref, isRef, refErr := dataset.ParseRef(ref)
	if _, statErr := os.Stat(ref); statErr == nil || !isRef || ref == "-" {
		in, closeIn, err := openInput(app, ref)
		return ref, in, closeIn, err
	}
	if refErr != nil {
		return "", nil, nil, refErr
	}
	be, who, err := app.ActorCtx(ctx)
	if err != nil {
		return "", nil, nil, err
	}
	content, err := be.DatasetContent(ctx, who, dref.Name, dref.Version)
	if err != nil {
		return "", nil, nil, err
	}
	return dref.String(), content, func() { content.Close() }, nil
}

// loadPredictions reads a predictions file into one Prediction per case
// (same order) with the score package's reader. An id that is not in the
// gold is an error, or with allowUnknown is skipped and counted; a case
// without a prediction is Missing (scored as no call).
func loadPredictions(ctx context.Context, app *App, path string, cases []score.Case, allowUnknown bool) ([]score.Prediction, int, error) {
	in, closeIn, err := openInput(app, path)
	if err != nil {
		return nil, 0, err
	}
	defer closeIn()
	return score.ReadPredictions(ctx, in, path, cases, score.PredictionOptions{AllowUnknown: allowUnknown})
}

// openInput opens path for reading: "-" is stdin, .gz is decompressed.
func openInput(app *App, path string) (io.Reader, func(), error) {
	if path == "-" {
		return app.In, func() {}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, fserr.Bare(err))
	}
	if !strings.HasSuffix(path, ".gz") {
		return f, func() { f.Close() }, nil
	}
	gz, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return gz, func() { gz.Close(); f.Close() }, nil
}

// linesRead reports on stderr, when it is a terminal, how many lines of
// name have been read (report is nil otherwise); done clears that line
// once reading is done.
func linesRead(app *App, name string) (report func(lines int), done func()) {
	if !IsTerminal(app.Err) {
		return nil, func() {}
	}
	return func(n int) { fmt.Fprintf(app.Err, "\rreading %s: %d lines", name, n) },
		func() { fmt.Fprint(app.Err, "\r\033[K") }
}

// loadTracePredictions reads a trace file in an import format and takes, for
// each gold record, the calls made at the decision point with the same input
// hash (score.TracePredictions).
func loadTracePredictions(app *App, path, format string, hashes []string) ([]score.Prediction, error) {
	r, closer, err := trace.OpenFile(path, format, app.In)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer closer.Close()
	preds, err := score.TracePredictions(r, hashes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return preds, nil
}
