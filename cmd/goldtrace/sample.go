package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/app/render"
	"github.com/goldtrace/goldtrace/internal/input"
	"github.com/goldtrace/goldtrace/sampling"
	"github.com/goldtrace/goldtrace/trace"
)

// newSampleCmd builds goldtrace sample. It is long because sample has many
// flags (strategy, allocation, filters, --from, --stale) and their help;
// the work is app's.
func newSampleCmd(cli *CLI) *cobra.Command {
	var o app.SampleOptions
	var stale staleFlags
	var reviewers, runs string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "sample",
		Short: "Draw a seeded, stratified, deduplicated sample of decision points into a batch with N reviewers per item",
		Long: `sample draws --n decision points from the stored items (or, with --from, from a
trace file, importing only the traces that hold sampled items), writes them as a
batch, and assigns each item --per-item distinct reviewers with balanced loads.

The same data, seed and flags give the same items in the same order. Without
--seed a seed is taken from the clock and printed, so the sample can be repeated.
Items with the same input (context and tools) count once: the copy from the
earliest trace wins. By default an input already in any batch is never drawn again.

--stale NAME@vN --tools FILE (a lead, --as) puts the items of that version that are
stale against the tool catalogue in FILE (see goldtrace drift) back to --reviewers
as a new batch: each reviewer starts from the old answer as a draft, with a note
saying what changed. The items are labeling again until the new labels settle, and
the next export carries the re-reviewed answers (its diff names them as changed).

--by disagreement --runs a.jsonl,b.jsonl[,…] draws the items the runs disagree on
most first (two models, or one model under two tool catalogues): tool disagreement
before argument disagreement, the seeded order within a level. Runs are JSON Lines
in the score --pred format whose ids are stored item ids. The batch records the
runs (name, sha256, lines) and each sampled item's disagreement.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if reviewers != "" {
				for _, r := range strings.Split(reviewers, ",") {
					if r = strings.TrimSpace(r); r != "" {
						o.Reviewers = append(o.Reviewers, r)
					}
				}
			}
			if stale.gold != "" {
				return runSampleStale(cmd, cli, stale, o, asJSON)
			}
			// --as typed without --stale; as from a config is only a
			// default, which a new sample (run as nobody) ignores.
			if stale.tools != "" || cmd.Flags().Changed("as") {
				return fmt.Errorf("--tools and --as go with --stale: a new sample is drawn without a user")
			}
			if runs != "" {
				if o.Runs, err = readRuns(cli, runs); err != nil {
					return err
				}
			}
			be, who, err := cli.ActorCtx(cmd.Context())
			if err != nil {
				return err
			}
			var reading *meter
			sio := app.SampleIO{
				Open: func(path, format string) (trace.Reader, io.Closer, error) {
					reading = newMeter(cli, app.DisplayName(path), "MB", 0)
					return openMeteredTraces(path, format, cli.In, reading)
				},
				DoneReading: func() { reading.Done() },
				OnInvalid: func(file string, e *trace.RecordError) {
					fmt.Fprintln(cli.Err, app.FormatInputError(file, e.Line, e.Err.Error()))
				},
			}
			plan, err := be.Sample(cmd.Context(), who, o, cmd.Flags().Changed("seed"), sio)
			var ie *app.InputError
			if errors.As(err, &ie) {
				line, msg := app.InputErrorParts(ie.Err)
				return errors.New(app.FormatInputError(ie.File, line, msg+": nothing sampled"))
			} else if err != nil {
				return err
			}
			return printSamplePlan(cli.Out, plan, asJSON)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.N, "n", 200, "how many items to sample")
	f.StringVar(&o.Seed, "seed", "", "random seed, an integer (default: taken from the clock and printed)")
	f.StringVar(&o.By, "by", "", "stratify by tool (the first observed tool, (none) for no call) or meta.NAME; disagreement: rank by --runs")
	f.StringVar(&runs, "runs", "", "with --by disagreement: comma-separated prediction runs (score --pred format, ids of stored items)")
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
	f.StringVar(&o.S3Endpoint, "s3-endpoint", "", "`URL` of an S3-compatible service for --from s3://… (MinIO, R2, GCS); default AWS")
	f.StringVar(&o.Format, "format", trace.FormatAuto, "format of --from: "+strings.Join(app.InputFormats, "|"))
	f.BoolVar(&o.SkipInvalid, "skip-invalid", false, "with --from: skip invalid records (each reported on stderr) instead of stopping")
	f.BoolVar(&o.DryRun, "dry-run", false, "print what would be sampled and assigned; write nothing")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	f.StringVar(&stale.gold, "stale", "", "put the items of dataset version NAME@vN that are stale against --tools back to --reviewers")
	f.StringVar(&stale.tools, "tools", "", "with --stale: the current tool catalogue (- for stdin)")
	f.StringVar(&stale.as, "as", "", "with --stale: the lead who reopens the gold")
	return cmd
}

// printSamplePlan writes a sample's plan as text or JSON. It is long
// because the text lists each part of the plan (strata, allocation,
// reviewers, notes) in its own lines.
func printSamplePlan(w io.Writer, p app.SamplePlan, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(p)
	}
	if p.Sampled < p.Requested {
		fmt.Fprintf(w, "only %d items match (asked for %d): sampling all of them\n", p.Matching, p.Requested)
	}
	how := "uniform"
	switch p.By {
	case "":
	case sampling.ByDisagreement:
		how = "ranked by disagreement"
	default:
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
	if p.By != "" && p.By != sampling.ByDisagreement {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "STRATUM\tAVAILABLE\tSAMPLED")
		for _, s := range p.Strata {
			fmt.Fprintf(tw, "%s\t%d\t%d\n", s.Name, s.Available, s.Sampled)
		}
		tw.Flush()
	}
	if len(p.Ranking) > 0 {
		var tool, args, none int
		for _, r := range p.Ranking {
			switch {
			case r.Tool > 0:
				tool++
			case r.Call > 0:
				args++
			default:
				none++
			}
		}
		fmt.Fprintf(w, "ranked by disagreement among %d runs: %d sampled items where they chose different tools, %d the same tools with different arguments, %d where they agree or fewer than two runs have a line\n",
			runsCount(p), tool, args, none)
		if p.Unranked > 0 {
			fmt.Fprintf(w, "note: %d ids in the runs are not stored items (ignored)\n", p.Unranked)
		}
	}
	if p.Source != "" {
		verb := "imported"
		if p.DryRun {
			verb = "would be imported"
		}
		if si := p.SourceInfo; si != nil && si.BytesTotal == 0 { // a database: sampled inside it
			fmt.Fprintf(w, "ranked %d model calls inside %s (%s); fetched %d (%.1f MB); the %d holding sampled items %s\n",
				si.Calls, p.Source, si.Layout, si.Requests, float64(si.BytesRead)/1e6, p.Imported, verb)
		} else if si != nil {
			fmt.Fprintf(w, "scanned %d model calls in %d rows of %s (%s, %d files; read %.1f of %.1f MB); the %d holding sampled items %s\n",
				si.Calls, si.Rows, p.Source, si.Layout, len(si.Files), float64(si.BytesRead)/1e6, float64(si.BytesTotal)/1e6, p.Imported, verb)
		} else {
			fmt.Fprintf(w, "read %s from %s (%d invalid skipped); the %d holding sampled items %s\n",
				render.CountNoun(p.Read, "trace", "traces"), p.Source, p.Invalid, p.Imported, verb)
		}
	}
	verb := "created"
	if p.DryRun {
		verb = "would be created"
	}
	if len(p.Reviewers) == 0 {
		fmt.Fprintf(w, "batch %s %s with %s (no reviewers given)\n", p.Batch, verb, render.CountNoun(p.Sampled, "item", "items"))
	} else {
		fmt.Fprintf(w, "batch %s %s with %s, %s per item\n", p.Batch, verb, render.CountNoun(p.Sampled, "item", "items"), render.CountNoun(p.PerItem, "reviewer", "reviewers"))
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

// openMeteredTraces opens a trace file (- for stdin) for reading with its
// bytes counted on meter; for a regular file the meter's total is its size,
// so progress shows a percentage and an ETA.
func openMeteredTraces(path, format string, stdin io.Reader, meter *meter) (trace.Reader, io.Closer, error) {
	f, size, err := input.Open(path, stdin)
	if err != nil {
		return nil, nil, err
	}
	meter.total = size
	r, err := trace.NewReader(input.Counted(f, meter.Add), format)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return r, f, nil
}

// runsCount is how many runs the ranking used (the most any item had).
func runsCount(p app.SamplePlan) int {
	n := 0
	for _, r := range p.Ranking {
		n = max(n, r.Runs)
	}
	return n
}

// readRuns reads --runs: comma-separated prediction files ("-" once for
// stdin).
func readRuns(cli *CLI, list string) ([]app.Run, error) {
	var out []app.Run
	stdin := false
	for _, path := range strings.Split(list, ",") {
		path = strings.TrimSpace(path)
		if path == "" {
			continue
		}
		if path == "-" {
			if stdin {
				return nil, fmt.Errorf("--runs: - (stdin) given twice")
			}
			stdin = true
		}
		in, closeIn, err := app.OpenInput(path, cli.In)
		if err != nil {
			return nil, fmt.Errorf("--runs %w", err)
		}
		run, err := app.ReadRun(in, path)
		closeIn()
		if err != nil {
			return nil, err
		}
		out = append(out, run)
	}
	return out, nil
}
