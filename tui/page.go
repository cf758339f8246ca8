package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// PageID names a screen the router can show.
type PageID int

// The screens.
const (
	PageLabel PageID = iota
	PageAdjudicate
	PageDashboard
	PageGuide
)

func (p PageID) String() string {
	switch p {
	case PageLabel:
		return "label"
	case PageAdjudicate:
		return "adjudicate"
	case PageDashboard:
		return "dashboard"
	case PageGuide:
		return "guide"
	}
	return "unknown"
}

// Page is one screen under the router. The router owns the window: it gives
// each page the space left after its status and help lines (SetSize), sends
// it every message it does not handle itself, and asks it to save its work
// (Flush) before quitting.
type Page interface {
	Init() tea.Cmd
	Update(msg tea.Msg) (Page, tea.Cmd)
	View() string
	SetSize(width, height int)
	// ShortHelp and FullHelp list the page's enabled keys for the help line.
	ShortHelp() []key.Binding
	FullHelp() [][]key.Binding
	// Typing reports whether a text field has focus; the router then lets
	// "q" and "?" through as text.
	Typing() bool
	// Flush returns a command that saves unsaved work synchronously (nil
	// when there is none); the router runs it before quitting.
	Flush() tea.Cmd
}

// SwitchPageMsg asks the router to show another page. Payload, when set, is
// delivered to that page's Update first (e.g. which guide section to open).
type SwitchPageMsg struct {
	To      PageID
	Payload tea.Msg
}

// SwitchPage is the command form of SwitchPageMsg.
func SwitchPage(to PageID, payload tea.Msg) tea.Cmd {
	return func() tea.Msg { return SwitchPageMsg{To: to, Payload: payload} }
}

// BackMsg asks the router to return to the page shown before the current one.
type BackMsg struct{}

// Back is the command form of BackMsg.
func Back() tea.Cmd { return func() tea.Msg { return BackMsg{} } }

// QuitMsg asks the router to flush the current page and quit.
type QuitMsg struct{}

// Quit is the command form of QuitMsg.
func Quit() tea.Cmd { return func() tea.Msg { return QuitMsg{} } }
