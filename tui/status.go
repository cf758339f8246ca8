package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// ErrMsg reports a failure to the user in the status line. It stays until
// dismissed (esc) or replaced.
type ErrMsg struct{ Err error }

func (e ErrMsg) Error() string { return e.Err.Error() }

// ReportErr is a command that shows err in the status line (nil for a nil err).
func ReportErr(err error) tea.Cmd {
	if err == nil {
		return nil
	}
	return func() tea.Msg { return ErrMsg{Err: err} }
}

// StatusMsg shows a short confirmation in the status line; it clears itself.
type StatusMsg struct{ Text string }

// ReportStatus is the command form of StatusMsg.
func ReportStatus(text string) tea.Cmd {
	return func() tea.Msg { return StatusMsg{Text: text} }
}

// statusExpiredMsg clears an info message if nothing replaced it.
type statusExpiredMsg struct{ seq int }

// statusInfoLifetime is how long a confirmation stays on screen.
const statusInfoLifetime = 4 * time.Second

// StatusLine is the one-line, dismissable message area under a page.
type StatusLine struct {
	styles *Styles
	text   string
	isErr  bool
	seq    int
	width  int
	// after schedules the expiry of confirmations; tests replace it.
	after func(time.Duration, func(time.Time) tea.Msg) tea.Cmd
}

// NewStatusLine is an empty status line.
func NewStatusLine(styles *Styles) StatusLine { return StatusLine{styles: styles, after: tea.Tick} }

// SetWidth sets the width the line is cut to.
func (s *StatusLine) SetWidth(w int) { s.width = w }

// Update handles ErrMsg, StatusMsg and its own expiry.
func (s *StatusLine) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case ErrMsg:
		s.seq++
		s.text, s.isErr = oneLine(msg.Err.Error()), true
	case StatusMsg:
		s.seq++
		s.text, s.isErr = oneLine(msg.Text), false
		seq := s.seq
		return s.after(statusInfoLifetime, func(time.Time) tea.Msg { return statusExpiredMsg{seq} })
	case statusExpiredMsg:
		if msg.seq == s.seq && !s.isErr {
			s.text = ""
		}
	}
	return nil
}

// Visible reports whether there is a message to dismiss.
func (s *StatusLine) Visible() bool { return s.text != "" }

// IsError reports whether the message shown is an error.
func (s *StatusLine) IsError() bool { return s.isErr && s.text != "" }

// Text is the message shown ("" when none).
func (s *StatusLine) Text() string { return s.text }

// Dismiss clears the message.
func (s *StatusLine) Dismiss() { s.text, s.isErr = "", false }

// View renders exactly one line.
func (s *StatusLine) View() string {
	if s.text == "" {
		return ""
	}
	var line string
	if s.isErr {
		line = s.styles.Status.Error.Render("✗ " + s.text + "  (esc)")
	} else {
		line = s.styles.Status.Info.Render("✓ " + s.text)
	}
	if s.width > 0 {
		line = lipgloss.NewStyle().MaxWidth(s.width).Render(line)
	}
	return line
}
