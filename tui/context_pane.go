package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// contextPane shows the conversation up to the decision point: roles with a
// colour and a text marker, the system prompt and tool results one line
// each until expanded, and (only when revealed) the production model's calls.
type contextPane struct {
	styles   *Styles
	vp       viewport.Model
	item     trace.Item
	notes    []store.Note
	loaded   bool
	expanded bool
	revealed bool
	width    int
}

func newContextPane(styles *Styles) contextPane {
	vp := viewport.New(0, 0)
	vp.MouseWheelEnabled = true
	vp.MouseWheelDelta = 2
	vp.KeyMap = viewport.KeyMap{} // the page owns the keys
	return contextPane{styles: styles, vp: vp}
}

// SetItem shows a new item, scrolled to the decision point, with the lead's
// notes to this reviewer when it was sent back.
func (c *contextPane) SetItem(it trace.Item, revealed bool, notes []store.Note) {
	c.item, c.notes, c.loaded, c.revealed, c.expanded = it, notes, true, revealed, false
	c.refresh(true)
}

// SetSize sets the pane's size; content is re-wrapped to the width.
func (c *contextPane) SetSize(w, h int) {
	changed := w != c.width
	c.width, c.vp.Width, c.vp.Height = w, w, max(h, 1)
	if changed {
		c.refresh(false)
	}
}

// ToggleExpanded shows or hides full system prompts and tool results.
func (c *contextPane) ToggleExpanded() {
	c.expanded = !c.expanded
	c.refresh(false)
}

// Reveal shows the production model's calls at the end of the context.
func (c *contextPane) Reveal() {
	c.revealed = true
	c.refresh(true)
}

func (c *contextPane) PageUp()   { c.vp.HalfPageUp() }
func (c *contextPane) PageDown() { c.vp.HalfPageDown() }

// Update lets the viewport handle the mouse wheel.
func (c *contextPane) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	c.vp, cmd = c.vp.Update(msg)
	return cmd
}

// ScrollInfo is "top", "end" or a percentage, for the pane title.
func (c *contextPane) ScrollInfo() string {
	switch {
	case c.vp.TotalLineCount() <= c.vp.Height:
		return ""
	case c.vp.AtBottom():
		return "end · pgup ↑"
	case c.vp.AtTop():
		return "top · pgdn ↓"
	}
	return fmt.Sprintf("%d%% · pgup/pgdn", int(c.vp.ScrollPercent()*100))
}

func (c *contextPane) View() string { return c.vp.View() }

func (c *contextPane) refresh(toBottom bool) {
	if !c.loaded || c.width <= 0 {
		return
	}
	atBottom := c.vp.AtBottom()
	c.vp.SetContent(c.render())
	if toBottom || atBottom {
		c.vp.GotoBottom()
	}
}

func (c *contextPane) render() string {
	s := c.styles
	var b strings.Builder
	write := func(marker string, style func(...string) string, body string, collapse bool) {
		body = strings.TrimRight(body, "\n ")
		if collapse && !c.expanded {
			flat := oneLine(body)
			if flat != body || ansi.StringWidth(marker)+1+ansi.StringWidth(flat) > c.wrapWidth() {
				hint := " [ctrl+e]"
				body = ansi.Truncate(flat, max(c.wrapWidth()-ansi.StringWidth(marker)-1-len(hint), 8), "…") + hint
			}
		}
		if body == "" {
			body = s.Muted.Render("(empty)")
		}
		lines := strings.Split(wrapText(marker+" "+body, c.wrapWidth()), "\n")
		lines[0] = style(marker) + strings.TrimPrefix(lines[0], marker)
		for i := 1; i < len(lines); i++ {
			lines[i] = "  " + lines[i]
		}
		b.WriteString(strings.Join(lines, "\n") + "\n")
	}
	for _, m := range c.item.Context {
		switch m.Role {
		case trace.RoleSystem:
			write("[system]", s.Role.System.Render, m.Content, true)
		case trace.RoleUser:
			write("[user]", s.Role.User.Render, m.Content, false)
		case trace.RoleAssistant:
			body := m.Content
			for _, call := range m.ToolCalls {
				if body != "" {
					body += "\n"
				}
				body += "→ " + callText(call)
			}
			write("[assistant]", s.Role.Assistant.Render, body, false)
		case trace.RoleTool:
			marker := "[tool result]"
			if m.Name != "" {
				marker = "[" + m.Name + " result]"
			}
			write(marker, s.Role.Tool.Render, m.Content, true)
		default:
			write("["+m.Role+"]", s.Muted.Render, m.Content, false)
		}
	}
	b.WriteString(s.Accent.Render(ansi.Truncate("▶ decision point: what should the assistant do now?", c.width, "…")))
	for _, n := range c.notes {
		b.WriteString("\n")
		write("[sent back by "+n.Author+"]", s.Warn.Render, n.Body, false)
	}
	if c.revealed {
		b.WriteString("\n")
		if len(c.item.Observed) == 0 {
			write("[model did]", s.Warn.Render, "no tool call (answered in words)", false)
		}
		for _, call := range c.item.Observed {
			write("[model did]", s.Warn.Render, "→ "+callText(call), false)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// callText is name(args) with the arguments as the model wrote them.
func callText(c trace.Call) string {
	args := c.RawArguments()
	if c.Unparseable {
		args += "  (not valid JSON)"
	}
	return c.Name + "(" + args + ")"
}

// wrapWidth leaves room for the indent of continuation lines.
func (c *contextPane) wrapWidth() int { return max(c.width-2, 10) }

// wrapText wraps at spaces, breaking only words longer than a line.
func wrapText(s string, width int) string {
	return ansi.Hardwrap(ansi.Wordwrap(s, width, " "), width, true)
}
