package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/app/render"
)

func newBatchesCmd(cli *CLI) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "batches",
		Short: "List sampled batches: seed, items, reviewers and assignment progress",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			be, who, err := cli.Actor(cmd, "")
			if err != nil {
				return err
			}
			batches, err := be.Batches(cmd.Context(), who)
			if err != nil {
				return fmt.Errorf("list batches: %w", err)
			}
			if asJSON {
				if batches == nil {
					batches = []app.BatchSummary{}
				}
				return render.IndentJSON(cli.Out, batches)
			}
			if len(batches) == 0 {
				fmt.Fprintln(cli.Out, "no batches yet: goldtrace sample --n 200 --reviewers alice,bob")
				return nil
			}
			tw := tabwriter.NewWriter(cli.Out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "BATCH\tCREATED\tSEED\tITEMS\tPER ITEM\tREVIEWERS\tPENDING\tDRAFT\tSUBMITTED\tSKIPPED")
			for _, b := range batches {
				created := b.CreatedAt
				if len(created) >= 16 {
					created = strings.Replace(created[:16], "T", " ", 1)
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%d\t%d\t%d\t%d\n", b.Name, created, b.Seed, b.Items, b.PerItem,
					strings.Join(b.Reviewers, ","), b.Assignments["pending"], b.Assignments["draft"],
					b.Assignments["submitted"], b.Assignments["skipped"])
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			render.BatchSources(cli.Out, batches)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
