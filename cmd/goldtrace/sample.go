package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	gapp "github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/sampling"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// sampleOptions are the flags of `goldtrace sample`.
type sampleOptions struct {
	N              int      `json:"n"`
	Seed           string   `json:"-"`
	By             string   `json:"by,omitempty"`
	Alloc          string   `json:"alloc"`
	MinPer         int      `json:"min_per_stratum"`
	Where          []string `json:"where,omitempty"`
	Since          string   `json:"since,omitempty"`
	Until          string   `json:"until,omitempty"`
	Turns          string   `json:"turns"`
	ExcludeSampled bool     `json:"exclude_sampled"`
	From           string   `json:"from,omitempty"`
	Format         string   `json:"format,omitempty"`
	SkipInvalid    bool     `json:"skip_invalid,omitempty"`
	Batch          string   `json:"-"`
	Reviewers      []string `json:"-"`
	PerItem        int      `json:"-"`
	DryRun         bool     `json:"-"`
	JSON           bool     `json:"-"`
}

// sampleQuery is sampleOptions checked and parsed.
type sampleQuery struct {
	opts       sampleOptions
	seed       int64
	seedChosen bool // no --seed: taken from the clock
	filter     sampling.Filter
}

// samplePlan is what `sample` did (or, with --dry-run, would do).
type samplePlan struct {
	Seed       int64              `json:"seed"`
	SeedChosen bool               `json:"seed_chosen"`
	By         string             `json:"by"`
	Alloc      string             `json:"alloc"`
	Requested  int                `json:"requested"`
	Matching   int                `json:"matching"`
	Sampled    int                `json:"sampled"`
	Duplicates int                `json:"duplicates_skipped"`
	Excluded   int                `json:"already_sampled_skipped"`
	Strata     []sampling.Stratum `json:"strata"`
	Note       string             `json:"note,omitempty"`
	Batch      string             `json:"batch"`
	PerItem    int                `json:"per_item"`
	Reviewers  []reviewerLoad     `json:"reviewers"`
	Items      []plannedItem      `json:"items"`
	DryRun     bool               `json:"dry_run"`
	Source     string             `json:"source,omitempty"`
	Read       int                `json:"traces_read,omitempty"`
	Invalid    int                `json:"invalid_skipped,omitempty"`
	Imported   int                `json:"traces_imported,omitempty"`
}

type reviewerLoad struct {
	Name  string `json:"name"`
	Items int    `json:"items"`
}

type plannedItem struct {
	ID        string   `json:"id"`
	TraceID   string   `json:"trace_id"`
	Turn      int      `json:"turn"`
	Stratum   string   `json:"stratum"`
	Reviewers []string `json:"reviewers"`
}

func newSampleCmd(app *App) *cobra.Command {
	var o sampleOptions
	var reviewers string
	cmd := &cobra.Command{
		Use:   "sample",
		Short: "Draw a seeded, stratified, deduplicated sample of decision points into a batch with N reviewers per item",
		Long: `sample draws --n decision points from the stored items (or, with --from, from a
trace file, importing only the traces that hold sampled items), writes them as a
batch, and assigns each item --per-item distinct reviewers with balanced loads.

The same data, seed and flags give the same items in the same order. Without
--seed a seed is taken from the clock and printed, so the sample can be repeated.
Items with the same input (context and tools) count once: the copy from the
earliest trace wins. By default an input already in any batch is never drawn again.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if reviewers != "" {
				for _, r := range strings.Split(reviewers, ",") {
					if r = strings.TrimSpace(r); r != "" {
						o.Reviewers = append(o.Reviewers, r)
					}
				}
			}
			q, err := parseSampleOptions(o, cmd.Flags().Changed("seed"))
			if err != nil {
				return err
			}
			action := gapp.ActSample
			if o.DryRun {
				action = gapp.ActTracesRead
			}
			done, err := app.permit(cmd.Context(), action, "")
			if err != nil {
				return err
			}
			st, err := app.Store(cmd.Context())
			if err != nil {
				return err
			}
			if !cmd.Flags().Changed("seed") {
				q.seed = st.Now().UnixNano() % 1_000_000_000
			}
			var plan samplePlan
			if o.From != "" {
				plan, err = runStreamSample(cmd.Context(), app, st, q)
			} else {
				plan, err = planStoreSample(cmd.Context(), st, q)
				if err == nil && !o.DryRun {
					err = writeSamplePlan(cmd.Context(), st, q, plan, nil)
				}
			}
			if err != nil {
				return err
			}
			if !o.DryRun {
				if err := done("batch " + plan.Batch); err != nil {
					return err
				}
			}
			return printSamplePlan(app.Out, plan, o.JSON)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.N, "n", 200, "how many items to sample")
	f.StringVar(&o.Seed, "seed", "", "random seed, an integer (default: taken from the clock and printed)")
	f.StringVar(&o.By, "by", "", "stratify by tool (the first observed tool, (none) for no call) or meta.NAME")
	f.StringVar(&o.Alloc, "alloc", sampling.AllocProportional, "share of each stratum: proportional or equal")
	f.IntVar(&o.MinPer, "min-per-stratum", 1, "at least this many items from every stratum that has items")
	f.StringArrayVar(&o.Where, "where", nil, "only items with KEY=VALUE (tool=NAME or meta.NAME=VALUE); repeat to AND")
	f.StringVar(&o.Since, "since", "", "only traces at or after this time (RFC 3339 or YYYY-MM-DD)")
	f.StringVar(&o.Until, "until", "", "only traces before this time (RFC 3339, or YYYY-MM-DD: through that day)")
	f.StringVar(&o.Turns, "turns", sampling.TurnsAll, "which decision points: calls, no-calls or all")
	f.BoolVar(&o.ExcludeSampled, "exclude-sampled", true, "never draw an input already in a batch")
	f.StringVar(&o.Batch, "batch", "", "batch name (default: b + the next number)")
	f.StringVar(&reviewers, "reviewers", "", "comma-separated reviewers (users) to assign; required unless --dry-run")
	f.IntVar(&o.PerItem, "per-item", 2, "distinct reviewers per item")
	f.StringVar(&o.From, "from", "", "stream-sample this trace file (- for stdin) instead of the store, importing only the traces sampled")
	f.StringVar(&o.Format, "format", trace.FormatAuto, "format of --from: "+strings.Join(trace.Formats, "|"))
	f.BoolVar(&o.SkipInvalid, "skip-invalid", false, "with --from: skip invalid records (each reported on stderr) instead of stopping")
	f.BoolVar(&o.DryRun, "dry-run", false, "print what would be sampled and assigned; write nothing")
	f.BoolVar(&o.JSON, "json", false, "print JSON")
	return cmd
}

// parseSampleOptions checks every flag before anything is read or written.
func parseSampleOptions(o sampleOptions, seedGiven bool) (sampleQuery, error) {
	q := sampleQuery{opts: o, seedChosen: !seedGiven}
	if o.N <= 0 {
		return q, fmt.Errorf("--n must be a positive number of items, not %d", o.N)
	}
	if seedGiven {
		seed, err := strconv.ParseInt(strings.TrimSpace(o.Seed), 10, 64)
		if err != nil {
			return q, fmt.Errorf("--seed %q: must be an integer", o.Seed)
		}
		q.seed = seed
	}
	if o.By != "" {
		if err := sampling.ValidKey(o.By); err != nil {
			return q, fmt.Errorf("--by: %w", err)
		}
	}
	if o.Alloc != sampling.AllocProportional && o.Alloc != sampling.AllocEqual {
		return q, fmt.Errorf("--alloc %q: must be %s or %s", o.Alloc, sampling.AllocProportional, sampling.AllocEqual)
	}
	if o.MinPer < 0 {
		return q, fmt.Errorf("--min-per-stratum must not be negative, not %d", o.MinPer)
	}
	for _, w := range o.Where {
		c, err := sampling.ParseCondition(w)
		if err != nil {
			return q, fmt.Errorf("--where %w", err)
		}
		q.filter.Where = append(q.filter.Where, c)
	}
	var err error
	if q.filter.Since, err = parseSampleTime(o.Since, false); err != nil {
		return q, fmt.Errorf("--since: %w", err)
	}
	if q.filter.Until, err = parseSampleTime(o.Until, true); err != nil {
		return q, fmt.Errorf("--until: %w", err)
	}
	if !q.filter.Since.IsZero() && !q.filter.Until.IsZero() && !q.filter.Since.Before(q.filter.Until) {
		return q, fmt.Errorf("--since %s is not before --until %s", o.Since, o.Until)
	}
	switch o.Turns {
	case sampling.TurnsAll, sampling.TurnsCalls, sampling.TurnsNoCalls:
		q.filter.Turns = o.Turns
	default:
		return q, fmt.Errorf("--turns %q: must be calls, no-calls or all", o.Turns)
	}
	if o.From != "" && !validFormat(o.Format) {
		return q, fmt.Errorf("--format must be one of %s, not %q", strings.Join(trace.Formats, "|"), o.Format)
	}
	if o.PerItem < 1 {
		return q, fmt.Errorf("--per-item must be at least 1, not %d", o.PerItem)
	}
	seen := map[string]bool{}
	for _, r := range o.Reviewers {
		if seen[r] {
			return q, fmt.Errorf("--reviewers: %s is listed twice", r)
		}
		seen[r] = true
	}
	switch {
	case len(o.Reviewers) == 0 && !o.DryRun:
		return q, errors.New("--reviewers is required: who labels this batch (e.g. --reviewers alice,bob)")
	case len(o.Reviewers) > 0 && o.PerItem > len(o.Reviewers):
		return q, fmt.Errorf("--per-item %d is more than the %d reviewers given", o.PerItem, len(o.Reviewers))
	}
	return q, nil
}

// parseSampleTime reads RFC 3339 or a date; a date as an upper bound means
// the end of that day.
func parseSampleTime(s string, upper bool) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither RFC 3339 (2026-05-01T12:00:00Z) nor a date (2026-05-01)", s)
	}
	if upper {
		d = d.AddDate(0, 0, 1)
	}
	return d, nil
}

// checkSampleStore rejects what would make the sample meaningless before it is
// drawn: an empty store, a --by meta key no trace has, unknown reviewers.
func checkSampleStore(ctx context.Context, st *store.Store, q sampleQuery) (items int, err error) {
	if q.opts.From == "" {
		n, err := st.CountItems(ctx)
		if err != nil {
			return 0, err
		}
		items = n
		if n == 0 {
			return 0, errors.New("the store has no items to sample: import traces first (goldtrace import FILE) or use --from FILE")
		}
		if name, ok := strings.CutPrefix(q.opts.By, "meta."); ok {
			has, err := st.HasMetaKey(ctx, name)
			if err != nil {
				return 0, err
			}
			if !has {
				keys, err := st.MetaKeys(ctx)
				if err != nil {
					return 0, err
				}
				return 0, fmt.Errorf("--by %s: no stored trace has metadata %q (keys: %s)", q.opts.By, name, orNone(keys))
			}
		}
	}
	missing, err := st.MissingUsers(ctx, q.opts.Reviewers)
	if err != nil {
		return 0, err
	}
	if len(missing) > 0 {
		return 0, fmt.Errorf("--reviewers: unknown users %s (add them with goldtrace users add NAME --role reviewer)", strings.Join(missing, ", "))
	}
	return items, nil
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// planStoreSample draws the sample from the store and assigns reviewers,
// writing nothing.
func planStoreSample(ctx context.Context, st *store.Store, q sampleQuery) (samplePlan, error) {
	items, err := checkSampleStore(ctx, st, q)
	if err != nil {
		return samplePlan{}, err
	}
	s := sampling.NewSampler(q.seed, q.opts.N, true)
	s.Expect(items)
	if q.opts.ExcludeSampled {
		hashes, err := st.SampledInputHashes(ctx)
		if err != nil {
			return samplePlan{}, err
		}
		s.Exclude(hashes)
	}
	f := store.CandidateFilter{Where: q.filter.Where, Since: q.filter.Since, Until: q.filter.Until, Turns: q.filter.Turns,
		ExcludeSampled: q.opts.ExcludeSampled, By: q.opts.By}
	scanned := 0
	err = st.ScanCandidates(ctx, f, func(row int64, hash []byte, stratum string) error {
		s.OfferRow(row, hash, stratum)
		if scanned++; scanned%65536 == 0 {
			return ctx.Err()
		}
		return nil
	})
	if err != nil {
		return samplePlan{}, err
	}
	sample, err := s.Result(q.opts.Alloc, q.opts.MinPer)
	if err != nil {
		return samplePlan{}, err
	}
	rows := make([]int64, len(sample.Items))
	for i, c := range sample.Items {
		rows[i] = c.Row
	}
	details, err := st.CandidatesByRow(ctx, rows)
	if err != nil {
		return samplePlan{}, err
	}
	for i, c := range sample.Items {
		d, ok := details[c.Row]
		if !ok {
			return samplePlan{}, fmt.Errorf("item row %d vanished while sampling", c.Row)
		}
		d.Stratum = c.Stratum
		sample.Items[i] = sampling.Candidate(d)
	}
	return buildSamplePlan(ctx, st, q, sample, s.Duplicates(), s.Excluded())
}

// buildSamplePlan names the batch and assigns reviewers to a drawn sample.
func buildSamplePlan(ctx context.Context, st *store.Store, q sampleQuery, sample sampling.Sample, dups, excluded int) (samplePlan, error) {
	p := samplePlan{Seed: q.seed, SeedChosen: q.seedChosen, By: q.opts.By, Alloc: q.opts.Alloc,
		Requested: q.opts.N, Strata: sample.Strata, Note: sample.Note, Duplicates: dups, Excluded: excluded,
		PerItem: q.opts.PerItem, DryRun: q.opts.DryRun, Source: q.opts.From, Sampled: len(sample.Items),
		Reviewers: []reviewerLoad{}, Items: []plannedItem{}}
	for _, s := range sample.Strata {
		p.Matching += s.Available
	}
	if p.Matching == 0 {
		return p, errors.New(noMatchMessage(q, dups, excluded))
	}
	p.Batch = q.opts.Batch
	if p.Batch == "" {
		name, err := st.NextBatchName(ctx)
		if err != nil {
			return p, err
		}
		p.Batch = name
	}
	var sets [][]string
	if len(q.opts.Reviewers) > 0 {
		var err error
		if sets, err = sampling.Assign(len(sample.Items), q.opts.Reviewers, q.opts.PerItem); err != nil {
			return p, err
		}
	}
	load := map[string]int{}
	for i, c := range sample.Items {
		it := plannedItem{ID: c.ItemID, TraceID: c.TraceID, Turn: c.Turn, Stratum: c.Stratum, Reviewers: []string{}}
		if sets != nil {
			it.Reviewers = sets[i]
			for _, r := range sets[i] {
				load[r]++
			}
		}
		p.Items = append(p.Items, it)
	}
	for _, r := range q.opts.Reviewers {
		p.Reviewers = append(p.Reviewers, reviewerLoad{Name: r, Items: load[r]})
	}
	return p, nil
}

func noMatchMessage(q sampleQuery, dups, excluded int) string {
	var what []string
	for _, w := range q.opts.Where {
		what = append(what, "--where "+w)
	}
	if q.opts.Since != "" {
		what = append(what, "--since "+q.opts.Since)
	}
	if q.opts.Until != "" {
		what = append(what, "--until "+q.opts.Until)
	}
	if q.opts.Turns != sampling.TurnsAll {
		what = append(what, "--turns "+q.opts.Turns)
	}
	msg := "no items match"
	if len(what) > 0 {
		msg += " " + strings.Join(what, " ")
	}
	if excluded > 0 || q.opts.ExcludeSampled {
		msg += " that are not already in a batch"
	}
	if excluded+dups > 0 {
		msg += fmt.Sprintf(" (%d already sampled, %d duplicates skipped)", excluded, dups)
	}
	return msg + ": nothing sampled"
}

// writeSamplePlan stores the batch and its assignments in one transaction;
// before runs first inside it.
func writeSamplePlan(ctx context.Context, st *store.Store, q sampleQuery, p samplePlan, before func(*store.Tx) error) error {
	params := struct {
		sampleOptions
		Seed int64 `json:"seed"`
	}{q.opts, q.seed}
	b := store.NewBatch{Name: p.Batch, Seed: q.seed, PerItem: q.opts.PerItem, Params: params}
	for _, it := range p.Items {
		b.Items = append(b.Items, store.BatchItem{ItemID: it.ID, Stratum: it.Stratum, Reviewers: it.Reviewers})
	}
	if err := st.CreateBatch(ctx, b, before); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return fmt.Errorf("--batch %s: a batch with that name exists; choose another name", p.Batch)
		}
		return fmt.Errorf("write batch %s: %w", p.Batch, err)
	}
	return nil
}

func printSamplePlan(w io.Writer, p samplePlan, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(p)
	}
	if p.Sampled < p.Requested {
		fmt.Fprintf(w, "only %d items match (asked for %d): sampling all of them\n", p.Matching, p.Requested)
	}
	how := "uniform"
	if p.By != "" {
		how = "by " + p.By + ", " + p.Alloc
	}
	fmt.Fprintf(w, "sampled %d of %d matching items (%s; %d duplicate inputs skipped, %d already sampled)\n",
		p.Sampled, p.Matching, how, p.Duplicates, p.Excluded)
	if p.SeedChosen {
		fmt.Fprintf(w, "seed %d (taken from the clock: repeat with --seed %d)\n", p.Seed, p.Seed)
	} else {
		fmt.Fprintf(w, "seed %d\n", p.Seed)
	}
	if p.Note != "" {
		fmt.Fprintf(w, "note: %s\n", p.Note)
	}
	if p.By != "" {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "STRATUM\tAVAILABLE\tSAMPLED")
		for _, s := range p.Strata {
			fmt.Fprintf(tw, "%s\t%d\t%d\n", s.Name, s.Available, s.Sampled)
		}
		tw.Flush()
	}
	if p.Source != "" {
		verb := "imported"
		if p.DryRun {
			verb = "would be imported"
		}
		fmt.Fprintf(w, "read %d traces from %s (%d invalid skipped); the %d holding sampled items %s\n",
			p.Read, p.Source, p.Invalid, p.Imported, verb)
	}
	verb := "created"
	if p.DryRun {
		verb = "would be created"
	}
	if len(p.Reviewers) == 0 {
		fmt.Fprintf(w, "batch %s %s with %d items (no reviewers given)\n", p.Batch, verb, p.Sampled)
	} else {
		fmt.Fprintf(w, "batch %s %s with %d items, %d reviewers per item\n", p.Batch, verb, p.Sampled, p.PerItem)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "REVIEWER\tITEMS")
		for _, r := range p.Reviewers {
			fmt.Fprintf(tw, "%s\t%d\n", r.Name, r.Items)
		}
		tw.Flush()
	}
	if p.DryRun {
		fmt.Fprintln(w, "dry run: nothing written")
	}
	return nil
}

// runStreamSample draws the sample from a trace file in one pass (memory
// bounded by the sample, see sampling.SampleReader), then imports only the
// traces holding sampled items and writes the batch, in one transaction.
func runStreamSample(ctx context.Context, app *App, st *store.Store, q sampleQuery) (samplePlan, error) {
	if _, err := checkSampleStore(ctx, st, q); err != nil {
		return samplePlan{}, err
	}
	name := displayName(q.opts.From)
	meter := newMeter(app, name, "MB", 0)
	r, closer, err := openMeteredTraces(q.opts.From, q.opts.Format, app.In, meter)
	if err != nil {
		return samplePlan{}, fmt.Errorf("--from %s: %w", name, err)
	}
	defer closer.Close()
	var exclude []string
	if q.opts.ExcludeSampled {
		if exclude, err = st.SampledInputHashes(ctx); err != nil {
			return samplePlan{}, err
		}
	}
	opts := sampling.StreamOptions{
		Seed: q.seed, N: q.opts.N, By: q.opts.By, Filter: q.filter, Alloc: q.opts.Alloc, MinPer: q.opts.MinPer,
		Exclude: exclude, SkipInvalid: q.opts.SkipInvalid,
		OnInvalid: func(e *trace.RecordError) {
			fmt.Fprintln(app.Err, formatImportError(name, e.Line, e.Err.Error()))
		},
	}
	res, err := sampling.SampleReader(ctxReader{ctx, r}, opts)
	meter.Done()
	if err != nil {
		line, msg := importErrorParts(err)
		return samplePlan{}, errors.New(formatImportError(name, line, msg+": nothing sampled"))
	}
	if res.Read == 0 {
		return samplePlan{}, fmt.Errorf("%s: no traces: nothing sampled", name)
	}
	if !res.ByKeySeen {
		return samplePlan{}, fmt.Errorf("--by %s: no trace in %s has metadata %q", q.opts.By, name, strings.TrimPrefix(q.opts.By, "meta."))
	}
	plan, err := buildSamplePlan(ctx, st, q, res.Sample, res.Duplicates, res.Excluded)
	if err != nil {
		return plan, err
	}
	plan.Source, plan.Read, plan.Invalid, plan.Imported = name, res.Read, res.Invalid, len(res.Traces)
	if q.opts.DryRun {
		return plan, nil
	}
	insert := func(tx *store.Tx) error {
		for _, t := range res.Traces {
			outcome, err := st.InsertTrace(ctx, tx, t, name)
			if err != nil {
				return fmt.Errorf("import trace %s: %w", t.ID, err)
			}
			if outcome == store.DuplicateContent {
				return fmt.Errorf("trace %s from %s is already stored under another id: sample it from the store instead", t.ID, name)
			}
		}
		return nil
	}
	return plan, writeSamplePlan(ctx, st, q, plan, insert)
}

// openMeteredTraces opens a trace file (- for stdin) for reading with its
// bytes counted on meter; for a regular file the meter's total is its size,
// so progress shows a percentage and an ETA.
func openMeteredTraces(path, format string, stdin io.Reader, meter *meter) (trace.Reader, io.Closer, error) {
	if path == "-" {
		r, err := trace.NewReader(meteredReader{stdin, meter}, format)
		return r, io.NopCloser(nil), err
	}
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, errors.New("no such file")
		}
		return nil, nil, unwrapPath(err)
	}
	fi, err := f.Stat()
	if err == nil && fi.IsDir() {
		f.Close()
		return nil, nil, errors.New("is a directory")
	}
	if err == nil && fi.Mode().IsRegular() {
		meter.total = fi.Size()
	}
	r, err := trace.NewReader(meteredReader{f, meter}, format)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return r, f, nil
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
