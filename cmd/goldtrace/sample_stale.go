package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/app/render"
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
	tools, err := app.ReadCatalogue(s.tools, cli.In)
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
	return render.StalePlan(cli.Out, plan, asJSON)
}
