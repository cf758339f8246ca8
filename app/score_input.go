package app

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/goldtrace/goldtrace/internal/input"

	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/score"
	"github.com/goldtrace/goldtrace/trace"
)

// Reading what scoring, the judge and predict grade: a gold dataset (a
// stored version NAME@vN or a dataset file), predictions, traces matched
// by input hash.

// GoldSource is where gold datasets, predictions and traces are read
// from, and how reading reports.
type GoldSource struct {
	// Versions opens a stored dataset version (App.DatasetContent for an
	// actor); nil when no database is open: files only.
	Versions func(ctx context.Context, name string, version int) (io.ReadCloser, error)
	// Stdin is what "-" reads.
	Stdin io.Reader
	// Remote says the reader is an SSH client: the server's files are not
	// theirs (nor whether one exists), so a gold is "-" or NAME@vN only.
	Remote bool
	// Progress, when set, is told now and then how many lines of the
	// input named name have been read.
	Progress func(name string, lines int)
}

// GoldSource reads stored versions as actor may.
func (a *App) GoldSource(actor Actor, stdin io.Reader) GoldSource {
	return GoldSource{Stdin: stdin, Versions: func(ctx context.Context, name string, version int) (io.ReadCloser, error) {
		return a.DatasetContent(ctx, actor, name, version)
	}}
}

func (in GoldSource) progress(name string) func(lines int) {
	if in.Progress == nil {
		return nil
	}
	return func(n int) { in.Progress(name, n) }
}

// openGold opens a gold file, or the stored version when ref is NAME@vN and
// no file of that name exists. name is what input errors cite.
func (in GoldSource) openGold(ctx context.Context, ref string) (name string, r io.Reader, closeIn func(), err error) {
	dref, isRef, refErr := dataset.ParseRef(ref)
	if ref == "-" || in.opensFile(ref, isRef) {
		r, closeIn, err := OpenInput(ref, in.Stdin)
		return ref, r, closeIn, err
	}
	if !isRef {
		return "", nil, nil, fmt.Errorf("%q: over SSH name a dataset version as NAME@vN", ref)
	}
	if refErr != nil {
		return "", nil, nil, refErr
	}
	if in.Versions == nil {
		return "", nil, nil, fmt.Errorf("%s: no such file, and no database to read a dataset version from", ref)
	}
	content, err := in.Versions(ctx, dref.Name, dref.Version)
	if err != nil {
		return "", nil, nil, err
	}
	return dref.String(), content, func() { content.Close() }, nil
}

// opensFile says whether a gold operand is read as a file: when it is not
// NAME@vN, or a file of that name exists; for a remote reader never.
func (in GoldSource) opensFile(ref string, isRef bool) bool {
	return OpensFile(ref, isRef, in.Remote)
}

// OpenInput opens a data file for reading: "-" is stdin, .gz is
// decompressed. Errors name the file.
func OpenInput(path string, stdin io.Reader) (io.Reader, func(), error) {
	r, err := input.OpenData(path, stdin)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, func() { r.Close() }, nil
}

// ReadGold reads the gold records named by ref (NAME@vN from the store, or
// a dataset JSONL file, .gz accepted, "-" for stdin) with the parts fields
// names (gold.Read). Records with identical available_tools or metadata
// share one copy, so memory stays flat on large datasets.
func ReadGold(ctx context.Context, in GoldSource, ref string, fields gold.Fields) ([]gold.Record, error) {
	recs, _, err := readGold(ctx, in, ref, fields, false)
	return recs, err
}

// readGold is ReadGold; withHashes also returns each record's input hash
// (sha256 of its context and tools, as trace.InputHash computes it),
// reading the conversations for it and keeping none of them.
func readGold(ctx context.Context, in GoldSource, ref string, fields gold.Fields, withHashes bool) ([]gold.Record, []string, error) {
	name, r, closeIn, err := in.openGold(ctx, ref)
	if err != nil {
		return nil, nil, err
	}
	defer closeIn()
	if withHashes {
		fields |= gold.FieldMessages
	}
	var recs []gold.Record
	var hashes []string
	err = gold.Read(ctx, r, name, gold.ReadOptions{Fields: fields, Progress: in.progress(name)}, func(_ int, rec *gold.Record) error {
		if withHashes {
			hashes = append(hashes, trace.InputHash(rec.Input.Messages, rec.AvailableTools))
			rec.Input.Messages = nil
		}
		recs = append(recs, *rec)
		return nil
	})
	return recs, hashes, err
}

// GoldContext is what an LLM reads of a gold record besides what scoring
// keeps: the conversation and the reviewers' rationale.
type GoldContext struct {
	Messages  []trace.Message
	Rationale string
}

// GoldContexts reads each gold record's conversation and rationale, by id.
// The gold is read a second time for them, so it cannot be stdin.
func GoldContexts(ctx context.Context, in GoldSource, ref string) (map[string]GoldContext, error) {
	if ref == "-" {
		return nil, errors.New("the judge and predict read the gold twice: give --gold as a file or NAME@vN, not -")
	}
	name, r, closeIn, err := in.openGold(ctx, ref)
	if err != nil {
		return nil, err
	}
	defer closeIn()
	out := map[string]GoldContext{}
	err = gold.Read(ctx, r, name, gold.ReadOptions{Fields: gold.FieldMessages | gold.FieldNotes, Progress: in.progress(name)}, func(_ int, rec *gold.Record) error {
		out[rec.ID] = GoldContext{Messages: rec.Input.Messages, Rationale: rec.Rationale}
		return nil
	})
	return out, err
}

// ScoreSource says what goldtrace score grades.
type ScoreSource struct {
	Gold string // NAME@vN or a dataset file ("-": stdin)
	// Pred is the predictions file ("-": stdin); "" scores the gold
	// records' observed_calls.
	Pred string
	// PredFormat reads Pred as traces in an import format, matched to gold
	// items by input hash.
	PredFormat string
	// AllowUnknown skips (and counts) predictions whose id is not in the
	// gold instead of failing.
	AllowUnknown bool
}

// ScoreInput is the gold and what is scored against it.
type ScoreInput struct {
	Cases []score.Case
	Preds []score.Prediction
	// Source names what was scored: the predictions file or
	// "observed_calls".
	Source string
	// Unknown counts the predictions skipped for ids not in the gold.
	Unknown int
}

// ReadScoreInput reads the gold cases and what to score against them: the
// predictions file (in parallel, by the score package's reader), the
// traces of PredFormat matched by input hash, or the gold's own
// observed_calls. A gold without records is an error.
func ReadScoreInput(ctx context.Context, in GoldSource, src ScoreSource) (ScoreInput, error) {
	var out ScoreInput
	if src.PredFormat != "" {
		recs, hashes, err := readGold(ctx, in, src.Gold, 0, true)
		if err != nil {
			return out, fmt.Errorf("read gold: %w", err)
		}
		if len(recs) == 0 {
			return out, fmt.Errorf("read gold: %s has no records", src.Gold)
		}
		out.Cases = make([]score.Case, len(recs))
		for i := range recs {
			out.Cases[i] = score.CaseOf(&recs[i])
		}
		if out.Preds, err = readTracePredictions(src.Pred, src.PredFormat, hashes, in.Stdin); err != nil {
			return out, fmt.Errorf("read predictions: %w", err)
		}
		out.Source = src.Pred
		return out, nil
	}
	name, r, closeIn, err := in.openGold(ctx, src.Gold)
	if err != nil {
		return out, fmt.Errorf("read gold: %w", err)
	}
	g, err := score.ReadGold(ctx, r, name, score.GoldOptions{ReadOptions: score.ReadOptions{Progress: in.progress(name)}, Observed: src.Pred == ""})
	closeIn()
	if err != nil {
		return out, fmt.Errorf("read gold: %w", err)
	}
	if len(g.Cases) == 0 {
		return out, fmt.Errorf("read gold: %s has no records", src.Gold)
	}
	out.Cases = g.Cases
	if src.Pred == "" {
		out.Preds, out.Source = g.Observed, "observed_calls"
		return out, nil
	}
	out.Preds, out.Unknown, err = readPredictions(ctx, in, src.Pred, out.Cases, g.Index, src.AllowUnknown)
	if err != nil {
		return out, fmt.Errorf("read predictions: %w", err)
	}
	out.Source = src.Pred
	return out, nil
}

// ReadPredictions reads a predictions file into one Prediction per case
// (same order) with the score package's reader. An id that is not in the
// gold is an error, or with allowUnknown is skipped and counted; a case
// without a prediction is Missing (scored as no call).
func ReadPredictions(ctx context.Context, in GoldSource, path string, cases []score.Case, allowUnknown bool) ([]score.Prediction, int, error) {
	return readPredictions(ctx, in, path, cases, nil, allowUnknown)
}

// readPredictions is ReadPredictions with the cases' positions by id when
// the gold's reader made them (nil: made here).
func readPredictions(ctx context.Context, in GoldSource, path string, cases []score.Case, index *gold.Index, allowUnknown bool) ([]score.Prediction, int, error) {
	r, closeIn, err := OpenInput(path, in.Stdin)
	if err != nil {
		return nil, 0, err
	}
	defer closeIn()
	return score.ReadPredictions(ctx, r, path, cases, score.PredictionOptions{
		ReadOptions: score.ReadOptions{Progress: in.progress(path)}, AllowUnknown: allowUnknown, Index: index})
}

// readTracePredictions reads a trace file in an import format and takes,
// for each gold record, the calls made at the decision point with the same
// input hash (score.TracePredictions).
func readTracePredictions(path, format string, hashes []string, stdin io.Reader) ([]score.Prediction, error) {
	r, closer, err := trace.OpenFile(path, format, stdin)
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
