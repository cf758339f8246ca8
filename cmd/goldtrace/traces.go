package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/goldtrace/goldtrace/app/render"
	"github.com/spf13/cobra"
)

func newTracesCmd(cli *CLI) *cobra.Command {
	var asJSON bool
	var top int
	cmd := &cobra.Command{
		Use:   "traces",
		Short: "Summarise the stored traces: counts, tools, metadata, time range",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			be, who, err := cli.Actor(cmd, "")
			if err != nil {
				return err
			}
			sum, err := be.TraceSummary(cmd.Context(), who, top)
			if err != nil {
				return fmt.Errorf("summarise traces: %w", err)
			}
			if err := warnUnfinishedImports(cmd.Context(), cli, be, who); err != nil {
				return err
			}
			if asJSON {
				return render.IndentJSON(cli.Out, sum)
			}
			if sum.Traces == 0 {
				fmt.Fprintln(cli.Out, "no traces yet: goldtrace import FILE")
				return nil
			}
			fmt.Fprintf(cli.Out, "traces: %d\nitems:  %d (%d with calls, %d without)\ntools:  %d distinct\n",
				sum.Traces, sum.Items, sum.ItemsWithCalls, sum.ItemsWithoutCalls, sum.DistinctTools)
			if sum.From != nil {
				fmt.Fprintf(cli.Out, "time:   %s … %s\n", sum.From.Format(time.RFC3339), sum.To.Format(time.RFC3339))
			}
			tw := tabwriter.NewWriter(cli.Out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "\nFIRST TOOL\tITEMS")
			for _, c := range sum.FirstTools {
				fmt.Fprintf(tw, "%s\t%d\n", c.Value, c.N)
			}
			for _, k := range sum.Metadata {
				fmt.Fprintf(tw, "\nmeta.%s (%d traces, %d values)\tTRACES\n", k.Key, k.Traces, k.Distinct)
				for _, c := range k.Top {
					fmt.Fprintf(tw, "  %s\t%d\n", c.Value, c.N)
				}
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().IntVar(&top, "top", 10, "values shown per list (0 = all)")
	return cmd
}
