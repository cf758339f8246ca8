package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	gapp "github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/sampling"
	"github.com/goldtrace/goldtrace/trace"
)

func newSampleCmd(app *App) *cobra.Command {
	var o gapp.SampleOptions
	var reviewers string
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
			be, who, err := app.ActorCtx(cmd.Context())
			if err != nil {
				return err
			}
			var reading *meter
			sio := gapp.SampleIO{
				Open: func(path, format string) (trace.Reader, io.Closer, error) {
					reading = newMeter(app, gapp.DisplayName(path), "MB", 0)
					return openMeteredTraces(path, format, app.In, reading)
				},
				DoneReading: func() { reading.Done() },
				OnInvalid: func(file string, e *trace.RecordError) {
					fmt.Fprintln(app.Err, gapp.FormatInputError(file, e.Line, e.Err.Error()))
				},
			}
			plan, err := be.Sample(cmd.Context(), who, o, cmd.Flags().Changed("seed"), sio)
			var ie *gapp.InputError
			if errors.As(err, &ie) {
				line, msg := gapp.InputErrorParts(ie.Err)
				return errors.New(gapp.FormatInputError(ie.File, line, msg+": nothing sampled"))
			} else if err != nil {
				return err
			}
			return printSamplePlan(app.Out, plan, asJSON)
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
	f.StringVar(&o.S3Endpoint, "s3-endpoint", "", "`URL` of an S3-compatible service for --from s3://… (MinIO, R2, GCS); default AWS")
	f.StringVar(&o.Format, "format", trace.FormatAuto, "format of --from: "+strings.Join(trace.Formats, "|"))
	f.BoolVar(&o.SkipInvalid, "skip-invalid", false, "with --from: skip invalid records (each reported on stderr) instead of stopping")
	f.BoolVar(&o.DryRun, "dry-run", false, "print what would be sampled and assigned; write nothing")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func printSamplePlan(w io.Writer, p gapp.SamplePlan, asJSON bool) error {
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
		if si := p.SourceInfo; si != nil && si.BytesTotal == 0 { // a database: sampled inside it
			fmt.Fprintf(w, "ranked %d model calls inside %s (%s); fetched %d (%.1f MB); the %d holding sampled items %s\n",
				si.Calls, p.Source, si.Layout, si.Requests, float64(si.BytesRead)/1e6, p.Imported, verb)
		} else if si != nil {
			fmt.Fprintf(w, "scanned %d model calls in %d rows of %s (%s, %d files; read %.1f of %.1f MB); the %d holding sampled items %s\n",
				si.Calls, si.Rows, p.Source, si.Layout, len(si.Files), float64(si.BytesRead)/1e6, float64(si.BytesTotal)/1e6, p.Imported, verb)
		} else {
			fmt.Fprintf(w, "read %d traces from %s (%d invalid skipped); the %d holding sampled items %s\n",
				p.Read, p.Source, p.Invalid, p.Imported, verb)
		}
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

// openMeteredTraces opens a trace file (- for stdin) for reading with its
// bytes counted on meter; for a regular file the meter's total is its size,
// so progress shows a percentage and an ETA.
func openMeteredTraces(path, format string, stdin io.Reader, meter *meter) (trace.Reader, io.Closer, error) {
	if path == "-" {
		r, err := trace.NewReader(meteredReader{stdin, meter}, format)
		return r, io.NopCloser(nil), err
	}
	f, size, err := gapp.OpenInputFile(path)
	if err != nil {
		return nil, nil, err
	}
	meter.total = size
	r, err := trace.NewReader(meteredReader{f, meter}, format)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return r, f, nil
}
