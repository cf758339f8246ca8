package app

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/goldtrace/goldtrace/sampling"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// SampleIO is how sampling --from a file reads and reports.
type SampleIO struct {
	// Open opens the file (- for stdin) as traces of format (the command
	// counts the bytes read for its progress meter). Nil: trace.OpenFile,
	// with stdin from In.
	Open func(path, format string) (trace.Reader, io.Closer, error)
	In   io.Reader
	// DoneReading, when set, is called once the file has been read.
	DoneReading func()
	// OnInvalid hears of each invalid record skipped (--skip-invalid).
	OnInvalid func(file string, e *trace.RecordError)
}

// InputError is a --from file that could not be sampled: nothing was.
type InputError struct {
	File string
	Err  error
}

func (e *InputError) Error() string { return e.File + ": " + e.Err.Error() + ": nothing sampled" }
func (e *InputError) Unwrap() error { return e.Err }

// runStreamSample draws the sample from a trace file in one pass (memory
// bounded by the sample, see sampling.SampleReader), then imports only the
// traces holding sampled items and writes the batch, all or nothing, in
// short transactions (store.CreateBatch).
func runStreamSample(ctx context.Context, st *store.Store, q sampleQuery, sio SampleIO) (SamplePlan, error) {
	if err := checkSampleStore(ctx, st, q); err != nil {
		return SamplePlan{}, err
	}
	name := q.opts.From
	if name == "-" {
		name = "stdin"
	}
	open := sio.Open
	if open == nil {
		open = func(path, format string) (trace.Reader, io.Closer, error) {
			return trace.OpenFile(path, format, sio.In)
		}
	}
	r, closer, err := open(q.opts.From, q.opts.Format)
	if err != nil {
		return SamplePlan{}, fmt.Errorf("--from %s: %w", name, err)
	}
	defer closer.Close()
	var exclude []string
	if q.opts.ExcludeSampled {
		if exclude, err = st.SampledInputHashes(ctx); err != nil {
			return SamplePlan{}, err
		}
	}
	opts := sampling.StreamOptions{
		Seed: q.seed, N: q.opts.N, By: q.opts.By, Filter: q.filter, Alloc: q.opts.Alloc, MinPer: q.opts.MinPer,
		Exclude: exclude, SkipInvalid: q.opts.SkipInvalid,
		OnInvalid: func(e *trace.RecordError) {
			if sio.OnInvalid != nil {
				sio.OnInvalid(name, e)
			}
		},
	}
	res, err := sampling.SampleReader(ctxReader{ctx, r}, opts)
	if sio.DoneReading != nil {
		sio.DoneReading()
	}
	if err != nil {
		return SamplePlan{}, &InputError{File: name, Err: err}
	}
	if res.Read == 0 {
		return SamplePlan{}, fmt.Errorf("%s: no traces: nothing sampled", name)
	}
	if !res.ByKeySeen {
		return SamplePlan{}, fmt.Errorf("--by %s: no trace in %s has metadata %q", q.opts.By, name, strings.TrimPrefix(q.opts.By, "meta."))
	}
	plan, err := buildSamplePlan(ctx, st, q, res.Sample, res.Duplicates, res.Excluded)
	if err != nil {
		return plan, err
	}
	plan.Source, plan.Read, plan.Invalid, plan.Imported = name, res.Read, res.Invalid, len(res.Traces)
	if q.opts.DryRun {
		return plan, nil
	}
	return plan, writeSamplePlan(ctx, st, q, plan, res.Traces, name)
}

// ctxReader stops a trace stream when the context ends (Ctrl-C).
type ctxReader struct {
	ctx context.Context
	r   trace.Reader
}

func (c ctxReader) Next() (trace.Trace, error) {
	if err := c.ctx.Err(); err != nil {
		return trace.Trace{}, err
	}
	return c.r.Next()
}
