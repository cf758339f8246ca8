package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/tui"
)

func newDashboardCmd(app *App) *cobra.Command {
	var as, batch string
	cmd := &cobra.Command{
		Use:   "dashboard --as LEAD [--batch B]",
		Short: "TUI: preview how the production model scores against the current gold (leads only)",
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
			if as == "" {
				return errors.New("dashboard: --as LEAD is required")
			}
			st, err := app.Store(ctx)
			if err != nil {
				return fmt.Errorf("open store: %w", err)
			}
			if err := st.RequireLead(ctx, as); err != nil {
				return dashboardUserError(as, err) // RunDashboard checks too; this says how to fix it
			}
			if batch != "" {
				if err := checkBatchExists(cmd, st, batch); err != nil {
					return err
				}
			}
			return tui.RunDashboard(ctx, st, as, tui.DashboardOptions{Batch: batch},
				app.programOptions()...)
		},
	}
	cmd.Flags().StringVar(&as, "as", "", "the lead looking (required)")
	cmd.Flags().StringVar(&batch, "batch", "", "only the items of this batch")
	return cmd
}

func checkBatchExists(cmd *cobra.Command, st *store.Store, batch string) error {
	batches, err := st.Batches(cmd.Context())
	if err != nil {
		return fmt.Errorf("dashboard: %w", err)
	}
	for _, b := range batches {
		if b.Name == batch {
			return nil
		}
	}
	return fmt.Errorf("dashboard: no batch %q (goldtrace batches lists them)", batch)
}

// dashboardUserError says in one line why name may not open the dashboard.
func dashboardUserError(name string, err error) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("dashboard: no user %q: add one with `goldtrace users add %s --role lead`", name, name)
	case errors.Is(err, store.ErrForbidden):
		return fmt.Errorf("dashboard: %s is not a lead; the dashboard shows adjudicated answers, so only leads may open it", name)
	}
	return fmt.Errorf("dashboard: check user %s: %w", name, err)
}
