package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/catalogue"
	"github.com/goldtrace/goldtrace/dataset"
)

// staleFlags are sample's flags for putting stale gold back to reviewers.
type staleFlags struct {
	gold, tools, as string
}

// sampleFlagsNotForStale are sample's flags that draw a new sample; with
// --stale the items are the stale ones, so they would mean nothing.
var sampleFlagsNotForStale = []string{"n", "seed", "by", "alloc", "min-per-stratum", "where", "since", "until", "turns", "exclude-sampled", "from", "format", "skip-invalid"}

// runSampleStale is sample --stale NAME@vN --tools FILE.
func runSampleStale(cmd *cobra.Command, cli *CLI, s staleFlags, o app.SampleOptions, asJSON bool) error {
	for _, name := range sampleFlagsNotForStale {
		if cmd.Flags().Changed(name) {
			return fmt.Errorf("--%s does not apply to --stale (the stale items are the sample)", name)
		}
	}
	ref, isRef, err := dataset.ParseRef(s.gold)
	if !isRef {
		return fmt.Errorf("--stale %s: want a dataset version NAME@vN", s.gold)
	}
	if err != nil {
		return err
	}
	if s.tools == "" {
		return fmt.Errorf("--stale needs --tools FILE: the current tool catalogue")
	}
	in, closeIn, err := app.OpenInput(s.tools, cli.In)
	if err != nil {
		return fmt.Errorf("--tools %w", err)
	}
	tools, err := catalogue.Read(in, s.tools)
	closeIn()
	if err != nil {
		return err
	}
	be, who, err := cli.Actor(cmd, s.as)
	if err != nil {
		return err
	}
	plan, err := be.SampleStale(cmd.Context(), who, app.StaleOptions{Gold: ref, Tools: tools, ToolsName: s.tools,
		Batch: o.Batch, Reviewers: o.Reviewers, PerItem: o.PerItem, DryRun: o.DryRun})
	if err != nil {
		return err
	}
	return printStalePlan(cli.Out, plan, asJSON)
}

func printStalePlan(w io.Writer, p app.StalePlan, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(p)
	}
	fmt.Fprintf(w, "%d of %d items of %s are stale against %s\n", p.Stale, p.Items, p.Gold, p.Tools)
	if p.Stale == 0 {
		fmt.Fprintln(w, "nothing to review again")
		return nil
	}
	verb := "created"
	if p.DryRun {
		verb = "would be created"
	}
	if len(p.Reviewers) == 0 {
		fmt.Fprintf(w, "batch %s %s with %d items (no reviewers given)\n", p.Batch, verb, p.Stale)
		return nil
	}
	fmt.Fprintf(w, "batch %s %s with %d items, %d reviewers per item; each starts from the old answer\n", p.Batch, verb, p.Stale, p.PerItem)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "REVIEWER\tITEMS")
	for _, r := range p.Reviewers {
		fmt.Fprintf(tw, "%s\t%d\n", r.Name, r.Items)
	}
	return tw.Flush()
}
