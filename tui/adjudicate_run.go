package tui

import (
	"context"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/goldtrace/goldtrace/store"
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
// they quit or ctx ends. Only leads may: anyone else gets store.ErrForbidden
// before the screen opens.
func RunAdjudicate(ctx context.Context, st *store.Store, opts AdjudicateOptions, progOpts ...tea.ProgramOption) error {
	if err := st.RequireLead(ctx, opts.Lead); err != nil {
		return fmt.Errorf("adjudicate: %w", err)
	}
	return Run(ctx, NewAdjudicateRoot(NewCommon(st), opts), progOpts...)
}
