package tui

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/goldtrace/goldtrace/store"
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
// ctx ends. Only leads may: the dashboard shows adjudicated answers, so
// anyone else gets store.ErrForbidden before the screen opens.
func RunDashboard(ctx context.Context, st *store.Store, lead string, opts DashboardOptions, progOpts ...tea.ProgramOption) error {
	if err := st.RequireLead(ctx, lead); err != nil {
		return err
	}
	opts.Lead = lead
	return Run(ctx, NewDashboardRoot(NewCommon(st), opts), progOpts...)
}
