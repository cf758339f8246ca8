package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"
)

// TestMemoAreaDrawsEveryChange: whatever changes the textarea (a key, an
// edit in place, focus, a new size), the next View is the textarea's own
// view of it; with no change, View gives the frame drawn before.
func TestMemoAreaDrawsEveryChange(t *testing.T) {
	m := newMemoArea(textarea.New())
	same := func(step string) {
		t.Helper()
		if got, want := m.View(), m.ta.View(); got != want {
			t.Fatalf("after %s the view is\n%s\nwant\n%s", step, got, want)
		}
	}
	m.SetWidth(40)
	same("a width")
	m.SetHeight(3)
	same("a height")
	m.Focus()
	same("focus")
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("hello")})
	same("a key")
	if !strings.Contains(m.View(), "hello") {
		t.Fatalf("a key's text is not drawn:\n%s", m.View())
	}
	m.edit().InsertString(" world" + strings.Repeat(" more", 10))
	same("an edit in place")
	m.SetWidth(20)
	same("a narrower width")
	m.SetHeight(6)
	same("a taller height")
	m.Update(tea.KeyMsg{Type: tea.KeyUp})
	same("a cursor move")
	m.Blur()
	same("blur")
	m.SetWidth(20)
	m.SetHeight(6)
	same("the same size again")
}
