package tui

import (
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"
)

// memoArea is a textarea whose View is drawn again only after something
// that may change it: textarea re-wraps, re-styles and pads every line on
// each View, and the label screen draws a frame for every message (autosave
// ticks and results, progress, status lines), not only for the keys that
// edit the text. Every change goes through its methods (edit for the
// helpers that work on a *textarea.Model), each of which drops the drawn
// view, so a stale frame cannot be shown.
type memoArea struct {
	ta    textarea.Model
	view  string
	drawn bool
	// w, h: the size last set (-1: none yet); the page sets it again after
	// every key.
	w, h int
}

func newMemoArea(ta textarea.Model) memoArea { return memoArea{ta: ta, w: -1, h: -1} }

// edit is the textarea for a change made in place; the view is drawn
// again.
func (m *memoArea) edit() *textarea.Model {
	m.drawn = false
	return &m.ta
}

func (m *memoArea) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	m.ta, cmd = m.edit().Update(msg)
	return cmd
}

func (m *memoArea) Focus() tea.Cmd { return m.edit().Focus() }
func (m *memoArea) Blur()          { m.edit().Blur() }

func (m *memoArea) SetWidth(w int) {
	if w != m.w {
		m.w = w
		m.edit().SetWidth(w)
	}
}

func (m *memoArea) SetHeight(h int) {
	if h != m.h {
		m.h = h
		m.edit().SetHeight(h)
	}
}

func (m *memoArea) Value() string { return m.ta.Value() }

func (m *memoArea) View() string {
	if !m.drawn {
		m.view, m.drawn = m.ta.View(), true
	}
	return m.view
}
