package tui

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"
)

// NewDashboardRoot is the router for a lead's dashboard session: the
// dashboard, with the adjudication screen (of the same batch) one key away.
func NewDashboardRoot(c *Common, opts DashboardOptions) *Root {
	opts.Adjudicate = true
	return NewRoot(c, PageDashboard, map[PageID]Page{
		PageDashboard:  NewDashboardPage(c, opts),
		PageAdjudicate: NewAdjudicatePage(c, AdjudicateOptions{Lead: opts.Lead, Batch: opts.Batch, Dashboard: true}),
	})
}

// RunDashboard runs the dashboard full-screen for lead until they quit or
// ctx ends. Only leads may: the dashboard shows adjudicated answers. api is
// the lead's session (app.App.As), which refuses anyone else; the caller
// opens it with app.Session.Open first, so a refusal comes before the
// screen.
func RunDashboard(ctx context.Context, api API, lead string, opts DashboardOptions, progOpts ...tea.ProgramOption) error {
	opts.Lead = lead
	return Run(ctx, NewDashboardRoot(NewCommon(api), opts), progOpts...)
}
