package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/tui"
)

func newDashboardCmd(cli *CLI) *cobra.Command {
	var as, batch string
	cmd := &cobra.Command{
		Use:         "dashboard --as LEAD [--batch B]",
		Annotations: map[string]string{"screen": "yes"},
		Short:       "TUI: preview how the production model scores against the current gold (leads only)",
		Long: `dashboard scores the traces' observed calls against the current gold (agreed and
adjudicated items, built exactly as export builds them) and shows the headline metrics,
the confusion matrix of gold × observed first tool, the worst tools, progress and
reviewer agreement. It refreshes when labels change. Select a matrix cell (arrows,
enter) to list its items, and an item to see the gold answer, the observed calls and
why they fail; t lists every tool, worst first; a opens adjudication. Only leads may
open it: it shows adjudicated answers.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			be, who, err := cli.Actor(cmd, as)
			if err != nil {
				return err
			}
			session := be.As(who)
			if _, err := session.Open(ctx, app.ActDashboard, "dashboard"); err != nil {
				return fmt.Errorf("dashboard: %w", err)
			}
			if batch != "" {
				if err := be.CheckBatch(cmd.Context(), who, batch); err != nil {
					return err
				}
			}
			err = tui.RunDashboard(ctx, session, who.Name, tui.DashboardOptions{Batch: batch},
				cli.programOptions()...)
			var notice *tui.QuitNotice
			if errors.As(err, &notice) {
				// the adjudication summary, when a went there: not a failure
				fmt.Fprintln(cli.Err, strings.Join(notice.Lines, "\n"))
				return nil
			}
			return err
		},
	}
	cmd.Flags().StringVar(&as, "as", "", "the lead looking (required)")
	cmd.Flags().StringVar(&batch, "batch", "", "only the items of this batch")
	return cmd
}
