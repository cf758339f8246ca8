package app

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/goldtrace/goldtrace/source"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// InputFormats are what --format may name: trace's JSON formats, and
// Phoenix (a postgres:// source); langfuse and langsmith also name the
// Parquet layouts.
var InputFormats = append(slices.Clip(trace.Formats), source.Phoenix)

// sourceLayout is the layout --format asks of source spec: "" to sniff it
// (from a Parquet schema, or a database's tables).
func sourceLayout(spec, format string) (string, error) {
	if format == "" || format == trace.FormatAuto {
		return "", nil
	}
	if source.IsPostgres(spec) {
		if format != source.Phoenix {
			return "", fmt.Errorf("--format %s: a postgres:// source is Phoenix's (--format phoenix)", format)
		}
		return format, nil
	}
	if format != source.Langfuse && format != source.LangSmith {
		return "", fmt.Errorf("--format %s: a Parquet source is %s", format, strings.Join(source.Layouts, " or "))
	}
	return format, nil
}

// runSourceSample draws the sample from a Parquet source in two passes
// (source.Sample), then imports only the traces holding sampled items and
// writes the batch, with where it came from, all or nothing.
func runSourceSample(ctx context.Context, st *store.Store, q sampleQuery) (SamplePlan, error) {
	if err := checkSampleStore(ctx, st, q); err != nil {
		return SamplePlan{}, err
	}
	layout, err := sourceLayout(q.opts.From, q.opts.Format)
	if err != nil {
		return SamplePlan{}, err
	}
	var exclude []string
	if q.opts.ExcludeSampled {
		if exclude, err = st.SampledInputHashes(ctx); err != nil {
			return SamplePlan{}, err
		}
	}
	res, err := source.Sample(ctx, source.Options{Spec: q.opts.From, Format: layout, Seed: q.seed, N: q.opts.N,
		By: q.opts.By, Filter: q.filter, Alloc: q.opts.Alloc, MinPer: q.opts.MinPer, Exclude: exclude,
		S3Endpoint: q.opts.S3Endpoint})
	if err != nil {
		return SamplePlan{}, fmt.Errorf("%w: nothing sampled", err)
	}
	q.opts.From = res.Info.URI // without a password: it is recorded with the batch
	if res.Info.Calls == 0 {
		return SamplePlan{}, fmt.Errorf("--from %s: no model calls in %d rows: nothing sampled", res.Info.URI, res.Info.Rows)
	}
	if !res.ByKeySeen {
		return SamplePlan{}, fmt.Errorf("--by %s: no model call in %s has metadata %q", q.opts.By, res.Info.URI, strings.TrimPrefix(q.opts.By, "meta."))
	}
	plan, err := buildSamplePlan(ctx, st, q, res.Sample, res.Duplicates, res.Excluded)
	if err != nil {
		return plan, err
	}
	info := res.Info
	plan.Read, plan.Imported, plan.SourceInfo = int(info.Calls), len(res.Traces), &info
	if q.opts.DryRun {
		return plan, nil
	}
	return plan, writeSamplePlan(ctx, st, q, plan, res.Traces, res.Info.URI)
}
