package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/goldtrace/goldtrace/source"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// sourceLayout is the Parquet layout --format asks for: "" to sniff it from
// the schema.
func sourceLayout(format string) (string, error) {
	switch format {
	case "", trace.FormatAuto:
		return "", nil
	case source.Langfuse, source.LangSmith:
		return format, nil
	}
	return "", fmt.Errorf("--format %s: a Parquet source is %s", format, strings.Join(source.Layouts, " or "))
}

// runSourceSample draws the sample from a Parquet source in two passes
// (source.Sample), then imports only the traces holding sampled items and
// writes the batch, with where it came from, all or nothing.
func runSourceSample(ctx context.Context, st *store.Store, q sampleQuery) (SamplePlan, error) {
	if _, err := checkSampleStore(ctx, st, q); err != nil {
		return SamplePlan{}, err
	}
	layout, err := sourceLayout(q.opts.Format)
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
	if res.Info.Calls == 0 {
		return SamplePlan{}, fmt.Errorf("--from %s: no model calls in %d rows: nothing sampled", q.opts.From, res.Info.Rows)
	}
	if !res.ByKeySeen {
		return SamplePlan{}, fmt.Errorf("--by %s: no model call in %s has metadata %q", q.opts.By, q.opts.From, strings.TrimPrefix(q.opts.By, "meta."))
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
	return plan, writeSamplePlan(ctx, st, q, plan, res.Traces, q.opts.From)
}
