package tui

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/goldtrace/goldtrace/store"
)

// NewDashboardRoot is the router for a lead's dashboard session. Other
// screens (adjudicate) can be added to its pages by the caller; set
// opts.Adjudicate when they are.
func NewDashboardRoot(c *Common, opts DashboardOptions, extra map[PageID]Page) *Root {
	pages := map[PageID]Page{PageDashboard: NewDashboardPage(c, opts)}
	for id, p := range extra {
		pages[id] = p
	}
	return NewRoot(c, PageDashboard, pages)
}

// RunDashboard runs the dashboard full-screen for lead until they quit or
// ctx ends. The caller checks that lead is a lead: the dashboard shows
// adjudicated answers.
func RunDashboard(ctx context.Context, st *store.Store, lead string, opts DashboardOptions, progOpts ...tea.ProgramOption) error {
	opts.Lead = lead
	return Run(ctx, NewDashboardRoot(NewCommon(st), opts, nil), progOpts...)
}
