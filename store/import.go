package store

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/goldtrace/goldtrace/trace"
)

// ErrNoRecords is the import of an input that holds no records at all.
var ErrNoRecords = errors.New("no records")

// ImportOptions say how ImportTraces treats one input.
type ImportOptions struct {
	// Source names the input (its path); it is stored with each trace.
	Source string
	// SkipInvalid imports the valid records and reports the invalid ones to
	// OnInvalid; without it the first invalid record aborts the input.
	SkipInvalid bool
	// OnInvalid receives each skipped record (SkipInvalid only).
	OnInvalid func(*trace.RecordError)
	// OnProgress, when set, is called every ProgressEvery records.
	OnProgress func(ImportResult)
}

// ProgressEvery is how many records pass between OnProgress calls.
const ProgressEvery = 5000

// ImportResult counts what one import did.
type ImportResult struct {
	Source     string `json:"file"`
	Imported   int    `json:"imported"`
	Duplicates int    `json:"duplicates"`
	Skipped    int    `json:"skipped"`
	Items      int    `json:"items"`
}

// ImportTraces reads every trace of r and stores it in one write
// transaction, so an input is imported whole or not at all. An invalid
// record (a *trace.RecordError, also for a trace id stored with other
// content) aborts the import unless opt.SkipInvalid; an input that cannot
// be read (a *trace.ReadError) always does. An input with no records is
// ErrNoRecords. Traces already stored are counted as duplicates.
func (s *Store) ImportTraces(ctx context.Context, r trace.Reader, opt ImportOptions) (ImportResult, error) {
	res := ImportResult{Source: opt.Source}
	lineOf := func() int {
		if lr, ok := r.(interface{ Line() int }); ok {
			return lr.Line()
		}
		return 0
	}
	err := s.WithTx(ctx, func(tx *Tx) error {
		w, err := s.prepareWriter(ctx, tx)
		if err != nil {
			return err
		}
		defer w.close()
		records := 0
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			t, err := r.Next()
			if err == io.EOF {
				break
			}
			records++
			if opt.OnProgress != nil && records%ProgressEvery == 0 {
				opt.OnProgress(res)
			}
			var rerr *trace.RecordError
			if errors.As(err, &rerr) {
				if !opt.SkipInvalid {
					return rerr
				}
				res.Skipped++
				if opt.OnInvalid != nil {
					opt.OnInvalid(rerr)
				}
				continue
			}
			if err != nil {
				return err
			}
			outcome, items, err := w.insert(ctx, t, opt.Source)
			if errors.Is(err, ErrConflict) {
				rerr := &trace.RecordError{Line: lineOf(), Err: fmt.Errorf("trace id %q is already stored with different content", t.ID)}
				if !opt.SkipInvalid {
					return rerr
				}
				res.Skipped++
				if opt.OnInvalid != nil {
					opt.OnInvalid(rerr)
				}
				continue
			}
			if err != nil {
				return fmt.Errorf("store trace %q: %w", t.ID, err)
			}
			if outcome == Inserted {
				res.Imported++
				res.Items += items
			} else {
				res.Duplicates++
			}
		}
		if records == 0 {
			return ErrNoRecords
		}
		return nil
	})
	if err != nil {
		return ImportResult{Source: opt.Source}, err
	}
	return res, nil
}
