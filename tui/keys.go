package tui

import "github.com/charmbracelet/bubbles/key"

// KeyMap is every binding of every screen, grouped by where it applies.
// Screens match with key.Matches and switch bindings off with SetEnabled so
// the help line only ever lists keys that work.
type KeyMap struct {
	Global     GlobalKeys
	Label      LabelKeys
	Adjudicate AdjudicateKeys
	Guide      GuideKeys
	Dashboard  DashboardKeys
}

// GlobalKeys work on every screen.
type GlobalKeys struct {
	ForceQuit  key.Binding // always quits (after saving)
	Quit       key.Binding // quits when no text field has focus
	Help       key.Binding // toggles the full help
	Back       key.Binding // closes an overlay, dismisses the status line
	ScrollUp   key.Binding
	ScrollDown key.Binding
}

// LabelKeys drive the label screen.
type LabelKeys struct {
	NextField   key.Binding
	PrevField   key.Binding
	Choose      key.Binding
	Submit      key.Binding
	Skip        key.Binding
	Reopen      key.Binding
	Reveal      key.Binding
	Guide       key.Binding
	AddCall     key.Binding
	RemoveCall  key.Binding
	MoveCallUp  key.Binding
	MoveCallDn  key.Binding
	ExpandTools key.Binding
	NextProblem key.Binding // the next field with a warning or an error, cycling
	GoToField   key.Binding // a field of the call by (part of) its name
}

// GuideKeys drive the guide screen.
type GuideKeys struct {
	Close key.Binding
	Up    key.Binding
	Down  key.Binding
	Top   key.Binding
	End   key.Binding
}

// DefaultKeyMap is goldtrace's one set of key bindings.
func DefaultKeyMap() KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Global: GlobalKeys{
			ForceQuit:  b("ctrl+c", "save & quit", "ctrl+c"),
			Quit:       b("q", "quit", "q"),
			Help:       b("?/f1", "more keys", "?", "f1"),
			Back:       b("esc", "back", "esc"),
			ScrollUp:   b("pgup", "scroll up", "pgup"),
			ScrollDown: b("pgdn", "scroll down", "pgdown"),
		},
		Label: LabelKeys{
			NextField:   b("tab", "next field", "tab"),
			PrevField:   b("shift+tab", "prev field", "shift+tab"),
			Choose:      b("enter", "choose", "enter"),
			Submit:      b("ctrl+s", "submit", "ctrl+s"),
			Skip:        b("ctrl+n", "skip", "ctrl+n"),
			Reopen:      b("ctrl+z", "reopen previous", "ctrl+z"),
			Reveal:      b("ctrl+o", "show model's call", "ctrl+o"),
			Guide:       b("ctrl+g", "guide", "ctrl+g"),
			AddCall:     b("ctrl+a", "add call", "ctrl+a"),
			RemoveCall:  b("ctrl+d", "remove call", "ctrl+d"),
			MoveCallUp:  b("alt+↑", "move call earlier", "alt+up"),
			MoveCallDn:  b("alt+↓", "move call later", "alt+down"),
			ExpandTools: b("ctrl+e", "expand tool results", "ctrl+e"),
			NextProblem: b("ctrl+p", "next ⚠/✗", "ctrl+p"),
			GoToField:   b("ctrl+l", "go to field", "ctrl+l"),
		},
		Adjudicate: defaultAdjudicateKeys(),
		Guide: GuideKeys{
			Close: b("esc", "back to labeling", "esc", "ctrl+g"),
			Up:    b("↑/k", "up", "up", "k"),
			Down:  b("↓/j", "down", "down", "j"),
			Top:   b("home/g", "top", "home", "g"),
			End:   b("end/G", "end", "end", "G"),
		},
		Dashboard: defaultDashboardKeys(),
	}
}
