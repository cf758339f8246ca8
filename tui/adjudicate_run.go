package tui

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"
)

// NewAdjudicateRoot is the router for a lead's adjudication session,
// starting on the adjudication screen; with opts.Dashboard the dashboard
// (which polls the store while the session runs) is one key away.
func NewAdjudicateRoot(c *Common, opts AdjudicateOptions) *Root {
	pages := map[PageID]Page{PageAdjudicate: NewAdjudicatePage(c, opts)}
	if opts.Dashboard {
		pages[PageDashboard] = NewDashboardPage(c, DashboardOptions{Lead: opts.Lead, Batch: opts.Batch, Adjudicate: true})
	}
	return NewRoot(c, PageAdjudicate, pages)
}

// RunAdjudicate runs the adjudication screen full-screen for opts.Lead until
// they quit or ctx ends. api is the lead's session (app.App.As), which
// refuses every call of anyone who is not a lead; the caller opens it with
// app.Session.Open first, so a refusal comes before the screen.
func RunAdjudicate(ctx context.Context, api API, opts AdjudicateOptions, progOpts ...tea.ProgramOption) error {
	return Run(ctx, NewAdjudicateRoot(NewCommon(api), opts), progOpts...)
}
