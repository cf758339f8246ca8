package tui

import "github.com/charmbracelet/bubbles/key"

// DashboardKeys drive the dashboard (preview) screen.
type DashboardKeys struct {
	Up         key.Binding
	Down       key.Binding
	Left       key.Binding
	Right      key.Binding
	Open       key.Binding // the selected cell's items, or the selected item
	Close      key.Binding // back to the matrix or the list
	Refresh    key.Binding
	Tools      key.Binding // every tool, worst first
	Adjudicate key.Binding
	Profile    key.Binding // score under the next profile
	Release    key.Binding // move a reviewer's skipped or stalled items to another
	Stalled    key.Binding // release: also pending items untouched for longer
	Yes        key.Binding // release: confirm
	No         key.Binding // release: go back
}

func defaultDashboardKeys() DashboardKeys {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return DashboardKeys{
		Up:         b("↑/k", "up", "up", "k"),
		Down:       b("↓/j", "down", "down", "j"),
		Left:       b("←/h", "left", "left", "h"),
		Right:      b("→/l", "right", "right", "l"),
		Open:       b("enter", "open", "enter"),
		Close:      b("esc", "back", "esc"),
		Refresh:    b("r", "refresh", "r"),
		Tools:      b("t", "all tools", "t"),
		Adjudicate: b("a", "adjudicate", "a"),
		Profile:    b("p", "profile", "p"),
		Release:    b("m", "release", "m"),
		Stalled:    b("s", "stalled too", "s"),
		Yes:        b("y", "release", "y"),
		No:         b("n/esc", "back", "n", "esc"),
	}
}
