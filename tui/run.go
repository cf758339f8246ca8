package tui

import (
	"context"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// NewLabelRoot is the router for a reviewer's labeling session: the label
// screen with the guide behind ctrl+g. dark picks the guide's colours.
func NewLabelRoot(c *Common, opts LabelOptions, dark bool) *Root {
	return NewRoot(c, PageLabel, map[PageID]Page{
		PageLabel: NewLabelPage(c, opts),
		PageGuide: NewGuidePage(c, dark),
	})
}

// RunLabel runs the labeling screen full-screen for opts.Reviewer until they
// quit (drafts are saved first) or ctx ends. api is the reviewer's session
// (app.App.As).
func RunLabel(ctx context.Context, api API, opts LabelOptions, progOpts ...tea.ProgramOption) error {
	c := NewCommon(api)
	dark := true
	if !c.Styles.NoColor {
		dark = lipgloss.HasDarkBackground()
	}
	return Run(ctx, NewLabelRoot(c, opts, dark), progOpts...)
}
