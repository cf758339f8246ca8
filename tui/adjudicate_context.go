package tui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/trace"
)

// roleColumn is the width of the role names in the context ("assistant ").
const roleColumn = 10

// renderItemContext is a read-only view of an item's conversation up to the
// decision point, in full (the pane scrolls), through the renderer the label
// screen uses, and after it the calls the production model made there.
func renderItemContext(s *Styles, it trace.Item, width int) string {
	decision := "── decision point: the production model called no tool"
	if len(it.Observed) > 0 {
		decision = "── decision point: the production model called"
	}
	cv := conversationView{Expanded: true, Decision: decision, Observed: it.Observed, ShowObserved: len(it.Observed) > 0}
	return cv.Render(s, it.Context, width)
}

// renderNotes lists an item's earlier notes (send-backs, guide proposals)
// under the context, so a lead sees that an item has been round before.
func renderNotes(s *Styles, notes []app.Note, width int) string {
	if len(notes) == 0 {
		return ""
	}
	lines := []string{s.Muted.Render(ansi.Truncate("── notes on this item", width, "…"))}
	for _, n := range notes {
		what := "proposed a guide change"
		switch n.Kind {
		case app.NoteSendBack:
			what = "sent it back to " + strings.Join(n.To, ", ")
		case app.NoteComment:
			what = "commented"
		}
		text := n.Author + " " + what + ": " + n.Body
		for _, part := range strings.Split(ansi.Wrap(text, max(width-roleColumn, 8), ""), "\n") {
			lines = append(lines, strings.Repeat(" ", roleColumn)+s.Muted.Render(part))
		}
	}
	return strings.Join(lines, "\n")
}

// observedCallText is a call on one line: tool name and compact arguments (marked
// when they were not JSON).
func observedCallText(c trace.Call) string {
	if c.Unparseable {
		return c.Name + " " + c.RawArguments() + "  (arguments not JSON)"
	}
	return c.Name + " " + compactJSON(c.Arguments)
}

func roleStyle(s *Styles, role string) lipgloss.Style {
	switch role {
	case "system":
		return s.Role.System
	case "user":
		return s.Role.User
	case "assistant":
		return s.Role.Assistant
	case "tool":
		return s.Role.Tool
	}
	return s.Muted
}
