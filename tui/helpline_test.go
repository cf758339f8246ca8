package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// helpPage is a page whose help is two keys, the second switched on and off.
type helpPage struct {
	Page
	keys []key.Binding
}

func (p helpPage) ShortHelp() []key.Binding  { return p.keys }
func (p helpPage) FullHelp() [][]key.Binding { return [][]key.Binding{p.keys} }
func (p helpPage) Update(tea.Msg) (Page, tea.Cmd) {
	return p, nil
}

// TestHelpLineFollowsTheKeys: the help drawn is the help of the keys as
// they are now, however often it switches between states drawn before.
func TestHelpLineFollowsTheKeys(t *testing.T) {
	styles := StylesFor(true)
	global := DefaultKeyMap().Global
	submit := key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "submit"))
	pick := key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "pick tool"))
	page := helpPage{keys: []key.Binding{submit, pick}}
	h := NewHelpLine(&styles)
	h.SetWidth(80)
	for i := range 40 { // more states than it keeps drawn
		pick.SetEnabled(i%2 == 0)
		page.keys[1] = pick
		if i%10 == 9 {
			h.SetWidth(60 + i)
		}
		v := h.View(page, global)
		if strings.Contains(v, "pick tool") != (i%2 == 0) || !strings.Contains(v, "submit") {
			t.Fatalf("state %d (pick enabled %v): help %q", i, i%2 == 0, v)
		}
		fresh := NewHelpLine(&styles)
		fresh.SetWidth(h.model.Width)
		if want := fresh.View(page, global); v != want {
			t.Fatalf("state %d: kept help %q, drawn afresh %q", i, v, want)
		}
	}
}
