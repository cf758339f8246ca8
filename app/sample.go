package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goldtrace/goldtrace/internal/suggest"
	"github.com/goldtrace/goldtrace/sampling"
	"github.com/goldtrace/goldtrace/source"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// Sample draws a seeded, stratified, deduplicated sample into a batch and
// assigns its items (leads; with DryRun it only plans, which anyone who
// may read the traces may). seedGiven is false when the seed is to be taken
// from the clock. Options are checked before anything is read.
func (a *App) Sample(ctx context.Context, actor Actor, o SampleOptions, seedGiven bool, sio SampleIO) (SamplePlan, error) {
	q, err := parseSampleOptions(o, seedGiven)
	if err != nil {
		return SamplePlan{}, err
	}
	action := ActSample
	if o.DryRun {
		action = ActTracesRead
	}
	if actor, err = a.authorize(ctx, actor, action, "sample"); err != nil {
		return SamplePlan{}, err
	}
	st := a.st
	if !seedGiven {
		q.seed = st.Now().UnixNano() % 1_000_000_000
	}
	q.audit = func(ctx context.Context, p SamplePlan) context.Context {
		return a.auditing(ctx, actor, ActSample, fmt.Sprintf("batch %s: %d items", p.Batch, p.Sampled))
	}
	var plan SamplePlan
	if o.From != "" && source.IsSource(o.From) {
		plan, err = runSourceSample(ctx, st, q)
	} else if o.From != "" {
		plan, err = runStreamSample(ctx, st, q, sio)
	} else {
		plan, err = planStoreSample(ctx, st, q)
		if err == nil && !o.DryRun {
			err = writeSamplePlan(ctx, st, q, plan, nil, "")
		}
	}
	if err != nil || o.DryRun {
		return plan, err
	}
	return plan, nil
}

// SampleOptions are what to sample: the flags of `goldtrace sample`.
type SampleOptions struct {
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
	S3Endpoint     string   `json:"s3_endpoint,omitempty"`
	// Runs are the prediction runs --by disagreement ranks with (ReadRun).
	Runs []Run `json:"runs,omitempty"`
	// Judge, with --by disagreement, also ranks by an LLM quality judge's
	// split vote on the runs' calls (recorded as SamplePlan.Judge).
	Judge     *JudgeRun `json:"-"`
	Batch     string    `json:"-"`
	Reviewers []string  `json:"-"`
	PerItem   int       `json:"-"`
	DryRun    bool      `json:"-"`
}

// sampleQuery is SampleOptions checked and parsed.
type sampleQuery struct {
	opts       SampleOptions
	seed       int64
	seedChosen bool // no --seed: taken from the clock
	filter     sampling.Filter
	// audit attaches the sample's audit entry to the context the batch is
	// written under: the batch becomes visible with its entry.
	audit func(context.Context, SamplePlan) context.Context
}

// SamplePlan is what `sample` did (or, with --dry-run, would do).
type SamplePlan struct {
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
	Reviewers  []ReviewerLoad     `json:"reviewers"`
	Items      []PlannedItem      `json:"items"`
	DryRun     bool               `json:"dry_run"`
	Source     string             `json:"source,omitempty"`
	Read       int                `json:"traces_read,omitempty"`
	Invalid    int                `json:"invalid_skipped,omitempty"`
	Imported   int                `json:"traces_imported,omitempty"`
	// SourceInfo is where a sample from a Parquet source came from: its
	// files with their versions and row counts (recorded with the batch).
	SourceInfo *source.Info `json:"source_info,omitempty"`
	// Ranking is, with --by disagreement, each sampled item's disagreement
	// among the runs, in batch order (highest first); Unranked counts run
	// ids that are not stored items.
	Ranking  []RankedItem `json:"ranking,omitempty"`
	Unranked int          `json:"run_ids_not_stored,omitempty"`
	// Judge is the LLM judge the ranking also used (--judge quality).
	Judge *SampleJudge `json:"judge,omitempty"`
}

type ReviewerLoad struct {
	Name  string `json:"name"`
	Items int    `json:"items"`
}

type PlannedItem struct {
	ID        string   `json:"id"`
	TraceID   string   `json:"trace_id"`
	Turn      int      `json:"turn"`
	Stratum   string   `json:"stratum"`
	Reviewers []string `json:"reviewers"`
}

// parseSampleOptions checks every flag before anything is read or written.
// It is long because it is a list: one check per flag, in the order the
// help lists them, each with its own message.
func parseSampleOptions(o SampleOptions, seedGiven bool) (sampleQuery, error) {
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
	switch {
	case o.By == sampling.ByDisagreement:
		if len(o.Runs) < 2 {
			return q, fmt.Errorf("--by disagreement needs --runs with two or more prediction runs (a.jsonl,b.jsonl)")
		}
		if o.From != "" {
			return q, fmt.Errorf("--by disagreement ranks stored items: import the traces and leave out --from")
		}
	case len(o.Runs) > 0:
		return q, fmt.Errorf("--runs goes with --by disagreement")
	case o.Judge != nil:
		return q, fmt.Errorf("--judge goes with --by disagreement: it ranks by the judge's split vote on the runs' calls")
	case o.By != "":
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
	if o.S3Endpoint != "" && !source.IsS3(o.From) {
		return q, errors.New("--s3-endpoint goes with --from s3://BUCKET/PREFIX")
	}
	if o.From != "" && !slices.Contains(InputFormats, o.Format) {
		return q, fmt.Errorf("--format must be one of %s, not %q", strings.Join(InputFormats, "|"), o.Format)
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
		given := fmt.Sprintf("the %d reviewers given", len(o.Reviewers))
		if len(o.Reviewers) == 1 {
			given = "the 1 reviewer given"
		}
		return q, fmt.Errorf("--per-item %d is more than %s (--reviewers %s): name more reviewers, or add --per-item %d",
			o.PerItem, given, strings.Join(o.Reviewers, ","), len(o.Reviewers))
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
func checkSampleStore(ctx context.Context, st *store.Store, q sampleQuery) error {
	if q.opts.From == "" {
		n, err := st.ItemRowsBound(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return errors.New("the store has no items to sample: import traces first (goldtrace import FILE) or use --from FILE")
		}
		if name, ok := strings.CutPrefix(q.opts.By, "meta."); ok {
			has, err := st.HasMetaKey(ctx, name)
			if err != nil {
				return err
			}
			if !has {
				keys, err := st.MetaKeys(ctx)
				if err != nil {
					return err
				}
				return fmt.Errorf("--by %s: no stored trace has metadata %q (keys: %s)", q.opts.By, name, orNone(keys))
			}
		}
	}
	missing, err := st.MissingUsers(ctx, q.opts.Reviewers)
	if err != nil {
		return err
	}
	if len(missing) > 0 {
		users, err := st.Users(ctx)
		if err != nil {
			return err
		}
		names := make([]string, len(users))
		for i, u := range users {
			names[i] = u.Name
		}
		for _, m := range missing {
			if near := suggest.Closest(m, names); near != "" {
				return fmt.Errorf("--reviewers: no user %q: did you mean %s? (users are %s)", m, near, strings.Join(names, ", "))
			}
		}
		return fmt.Errorf("--reviewers: unknown users %s (add them with goldtrace users add NAME --role reviewer)", strings.Join(missing, ", "))
	}
	return nil
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// planStoreSample draws the sample from the store and assigns reviewers,
// writing nothing.
func planStoreSample(ctx context.Context, st *store.Store, q sampleQuery) (SamplePlan, error) {
	err := checkSampleStore(ctx, st, q)
	if err != nil {
		return SamplePlan{}, err
	}
	s := sampling.NewSampler(q.seed, q.opts.N, true)
	var ranking map[string]ranked
	var judged *SampleJudge
	unranked := 0
	if q.opts.By == sampling.ByDisagreement {
		if ranking, unranked, err = disagreementRanking(ctx, st, q.opts.Runs); err != nil {
			return SamplePlan{}, err
		}
		if q.opts.Judge != nil {
			if judged, err = judgeRanking(ctx, st, q.opts.Runs, ranking, q.opts.Judge); err != nil {
				return SamplePlan{}, err
			}
		}
		prio := make(map[string]uint8, len(ranking))
		for h, r := range ranking {
			prio[h] = r.d.Priority(judged != nil)
		}
		s.Prioritize(prio)
	}
	by := q.opts.By
	if by == sampling.ByDisagreement {
		by = "" // one stratum: the ranking orders it
	}
	f := store.CandidateFilter{Where: q.filter.Where, Since: q.filter.Since, Until: q.filter.Until, Turns: q.filter.Turns,
		ExcludeSampled: q.opts.ExcludeSampled, By: by}
	if err := st.DrawCandidates(ctx, f, s); err != nil {
		return SamplePlan{}, err
	}
	sample, err := s.Result(q.opts.Alloc, q.opts.MinPer)
	if err != nil {
		return SamplePlan{}, err
	}
	rows := make([]int64, len(sample.Items))
	for i, c := range sample.Items {
		rows[i] = c.Row
	}
	details, err := st.CandidatesByRow(ctx, rows)
	if err != nil {
		return SamplePlan{}, err
	}
	for i, c := range sample.Items {
		d, ok := details[c.Row]
		if !ok {
			return SamplePlan{}, fmt.Errorf("item row %d vanished while sampling", c.Row)
		}
		d.Stratum = c.Stratum
		sample.Items[i] = sampling.Candidate(d)
	}
	p, err := buildSamplePlan(ctx, st, q, sample, s.Duplicates(), s.Excluded())
	if err != nil || ranking == nil {
		return p, err
	}
	p.Unranked, p.Judge = unranked, judged
	p.Ranking = make([]RankedItem, len(sample.Items))
	for i, c := range sample.Items {
		p.Ranking[i] = RankedItem{ID: c.ItemID, Disagreement: ranking[c.InputHash].d}
	}
	return p, nil
}

// buildSamplePlan names the batch and assigns reviewers to a drawn sample.
func buildSamplePlan(ctx context.Context, st *store.Store, q sampleQuery, sample sampling.Sample, dups, excluded int) (SamplePlan, error) {
	p := SamplePlan{Seed: q.seed, SeedChosen: q.seedChosen, By: q.opts.By, Alloc: q.opts.Alloc,
		Requested: q.opts.N, Strata: sample.Strata, Note: sample.Note, Duplicates: dups, Excluded: excluded,
		PerItem: q.opts.PerItem, DryRun: q.opts.DryRun, Source: q.opts.From, Sampled: len(sample.Items),
		Reviewers: []ReviewerLoad{}, Items: []PlannedItem{}}
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
		it := PlannedItem{ID: c.ItemID, TraceID: c.TraceID, Turn: c.Turn, Stratum: c.Stratum, Reviewers: []string{}}
		if sets != nil {
			it.Reviewers = sets[i]
			for _, r := range sets[i] {
				load[r]++
			}
		}
		p.Items = append(p.Items, it)
	}
	for _, r := range q.opts.Reviewers {
		p.Reviewers = append(p.Reviewers, ReviewerLoad{Name: r, Items: load[r]})
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

// writeSamplePlan stores the batch and its assignments (store.CreateBatch:
// all or nothing, in short transactions), after traces (from source) when
// the sample was drawn from a file.
func writeSamplePlan(ctx context.Context, st *store.Store, q sampleQuery, p SamplePlan, traces []trace.Trace, from string) error {
	params := struct {
		SampleOptions
		Seed       int64        `json:"seed"`
		SourceInfo *source.Info `json:"source_info,omitempty"`
		Ranking    []RankedItem `json:"ranking,omitempty"`
		Judge      *SampleJudge `json:"judge,omitempty"`
	}{q.opts, q.seed, p.SourceInfo, p.Ranking, p.Judge}
	b := store.NewBatch{Name: p.Batch, Seed: q.seed, PerItem: q.opts.PerItem, Params: params, Traces: traces, Source: from}
	if q.audit != nil {
		ctx = q.audit(ctx, p)
	}
	for _, it := range p.Items {
		b.Items = append(b.Items, store.BatchItem{ItemID: it.ID, Stratum: it.Stratum, Reviewers: it.Reviewers})
	}
	if err := st.CreateBatch(ctx, b); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return fmt.Errorf("--batch %s: a batch with that name exists; choose another name", p.Batch)
		}
		return fmt.Errorf("write batch %s: %w", p.Batch, err)
	}
	return nil
}
