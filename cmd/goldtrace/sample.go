package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/app/render"
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
	var jf judgeFlags
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
runs (name, sha256, lines) and each sampled item's disagreement. With --judge
quality (and --judge-model, a pinned snapshot) an LLM judge is also asked about
every run's calls on each ranked item, through the judge cache, and items the
judge's yes/no votes split on rank higher; the batch records the judge too.`,
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
				if o.Runs, err = app.ReadRuns(runs, cli.In); err != nil {
					return err
				}
			}
			if o.Judge, err = jf.OptionalJudgeRun(judgeIO(cli), "quality"); err != nil {
				return err
			}
			be, who, err := cli.ActorCtx(cmd.Context())
			if err != nil {
				return err
			}
			var reading *render.Meter
			sio := app.SampleIO{
				Open: func(path, format string) (trace.Reader, io.Closer, error) {
					reading = newMeter(cli, app.DisplayName(path), "MB", 0)
					return app.OpenTraces(path, format, cli.In, reading.SetTotal, reading.Add)
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
			return render.SamplePlan(cli.Out, plan, asJSON)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.N, "n", 200, "how many items to sample")
	f.StringVar(&o.Seed, "seed", "", "random seed, an integer (default: taken from the clock and printed)")
	f.StringVar(&o.By, "by", "", "stratify by tool (the first observed tool, (none) for no call) or meta.NAME; disagreement: rank by --runs")
	f.StringVar(&runs, "runs", "", "with --by disagreement: comma-separated prediction runs (score --pred format, ids of stored items)")
	f.StringVar(&jf.Kind, "judge", "", "with --by disagreement: also rank by an LLM judge's split vote on the runs' calls (quality)")
	f.StringVar(&jf.Model, "judge-model", "", "the judge's model, pinned to a snapshot (e.g. gpt-4o-2024-08-06)")
	f.StringVar(&jf.Template, "judge-template", "", "replace the judge's prompt with this text/template file (goldtrace judge prompt quality shows the default)")
	f.IntVar(&jf.Samples, "judge-samples", 5, "yes/no judgments per run and item")
	addClientFlags(f, &jf, "judge-")
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
