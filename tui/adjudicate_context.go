package tui

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// roleColumn is the width of the role names in the context ("assistant ").
const roleColumn = 10

// renderItemContext is a read-only view of an item's conversation up to the
// decision point, wrapped to width: each message under its role (coloured
// and named, so it reads without colour), the assistant's calls as
// "→ tool {args}", tool results under the tool's name, and at the end the
// calls the production model made at the decision point.
func renderItemContext(s *Styles, it trace.Item, width int) string {
	var lines []string
	add := func(role string, style lipgloss.Style, text string) {
		textW := max(width-roleColumn, 8)
		for i, part := range strings.Split(ansi.Wrap(text, textW, ""), "\n") {
			label := strings.Repeat(" ", roleColumn)
			if i == 0 {
				label = style.Render(role) + strings.Repeat(" ", max(roleColumn-ansi.StringWidth(role), 1))
			}
			lines = append(lines, label+s.Role.Body.Render(part))
		}
	}
	for _, m := range it.Context {
		style, role := roleStyle(s, m.Role), m.Role
		if strings.TrimSpace(m.Content) != "" || len(m.ToolCalls) == 0 {
			text := strings.TrimRight(m.Content, "\n")
			if m.Role == "tool" && m.Name != "" {
				text = m.Name + " ⇒ " + text
			}
			if strings.TrimSpace(text) == "" {
				text = "(empty)"
			}
			add(role, style, text)
		}
		for _, c := range m.ToolCalls {
			add(role, style, "→ "+observedCallText(c))
		}
	}
	rule := "── decision point: the production model "
	switch len(it.Observed) {
	case 0:
		lines = append(lines, s.Muted.Render(ansi.Truncate(rule+"called no tool", width, "…")))
	default:
		lines = append(lines, s.Muted.Render(ansi.Truncate(rule+"called:", width, "…")))
		for _, c := range it.Observed {
			add("model", s.Muted, "→ "+observedCallText(c))
		}
	}
	return strings.Join(lines, "\n")
}

// renderNotes lists an item's earlier notes (send-backs, guide proposals)
// under the context, so a lead sees that an item has been round before.
func renderNotes(s *Styles, notes []store.Note, width int) string {
	if len(notes) == 0 {
		return ""
	}
	lines := []string{s.Muted.Render(ansi.Truncate("── notes on this item", width, "…"))}
	for _, n := range notes {
		what := "proposed a guide change"
		switch n.Kind {
		case store.NoteSendBack:
			what = "sent it back to " + strings.Join(n.To, ", ")
		case store.NoteComment:
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
