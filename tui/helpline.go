package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// HelpLine shows the keys that work now: one line by default, the full
// list when toggled with "?".
type HelpLine struct {
	model help.Model
}

// NewHelpLine is a one-line help in the given styles.
func NewHelpLine(styles *Styles) HelpLine {
	m := help.New()
	m.Styles = styles.Help
	return HelpLine{model: m}
}

// SetWidth sets the width the help is cut to.
func (h *HelpLine) SetWidth(w int) { h.model.Width = w }

// ToggleFull switches between the one-line and the full help.
func (h *HelpLine) ToggleFull() { h.model.ShowAll = !h.model.ShowAll }

// Full reports whether the full help is shown.
func (h *HelpLine) Full() bool { return h.model.ShowAll }

// View renders the page's keys followed by the global ones.
func (h *HelpLine) View(page Page, global GlobalKeys) string {
	if h.model.ShowAll {
		groups := append(page.FullHelp(), []key.Binding{global.Help, global.ScrollUp, global.ScrollDown, global.Quit, global.ForceQuit})
		return h.model.FullHelpView(groups)
	}
	short := append(page.ShortHelp(), global.Help)
	// bubbles' help overflows when even its ellipsis does not fit; cut it.
	return ansi.Truncate(h.model.ShortHelpView(short), h.model.Width, "…")
}

// Height is the number of lines View takes for page.
func (h *HelpLine) Height(page Page, global GlobalKeys) int {
	v := h.View(page, global)
	if v == "" {
		return 1
	}
	return lipgloss.Height(strings.TrimRight(v, "\n"))
}
