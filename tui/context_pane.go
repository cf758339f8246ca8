package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/trace"
)

// contextPane shows the conversation up to the decision point: roles with a
// colour and a text marker, the system prompt and tool results one line
// each until expanded, and (only when revealed) the production model's calls.
type contextPane struct {
	styles   *Styles
	vp       viewport.Model
	item     trace.Item
	notes    []app.Note
	loaded   bool
	expanded bool
	revealed bool
	tree     observedTree // marks and changes of the observed calls
	lines    []string     // the content, as drawn
	width    int
	// content counts the contents set; drawn is the last view and the
	// state it was drawn in: the pane is redrawn on every key typed in
	// the form below it, and rarely changes.
	content int
	drawn   paneDrawing
}

// paneDrawing is a view of the pane and all the viewport's View reads
// (its style is fixed at creation).
type paneDrawing struct {
	content, y, w, h int
	x                float64
	view             string
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
func (c *contextPane) SetItem(it trace.Item, revealed bool, notes []app.Note) {
	c.item, c.notes, c.loaded, c.revealed, c.expanded, c.tree = it, notes, true, revealed, false, observedTree{}
	c.refresh(true)
}

// SetSize sets the pane's size; content is re-wrapped to the width.
func (c *contextPane) SetSize(w, h int) {
	changed := w != c.width
	atBottom := c.vp.AtBottom()
	c.width, c.vp.Width, c.vp.Height = w, w, max(h, 1)
	if changed {
		c.refresh(false)
	}
	if atBottom {
		// The decision point stays in view when the form takes more lines.
		c.vp.GotoBottom()
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

// SetTree sets the marks and the label's changes drawn on the observed
// calls; the pane is drawn again only when they changed.
func (c *contextPane) SetTree(t observedTree) {
	if fmt.Sprint(t) == fmt.Sprint(c.tree) {
		return
	}
	c.tree = t
	if c.revealed {
		c.refresh(false)
	}
}

// ShowLeaf scrolls so the line of the observed call's value named field
// (flights[1].date) is in the middle of the pane, when it is drawn.
func (c *contextPane) ShowLeaf(call int, field string) {
	if !c.revealed {
		return
	}
	seen := -1
	for i, l := range c.lines {
		plain := ansi.Strip(l)
		if strings.HasPrefix(plain, "[model did]") {
			seen++
			continue
		}
		if seen == call && strings.HasPrefix(strings.TrimLeft(plain, " "), field+" ") {
			c.vp.SetYOffset(max(i-c.vp.Height/2, 0))
			return
		}
	}
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

func (c *contextPane) View() string {
	d := paneDrawing{content: c.content, y: c.vp.YOffset, w: c.vp.Width, h: c.vp.Height, x: c.vp.HorizontalScrollPercent()}
	if c.drawn.view != "" && c.drawn.content == d.content && c.drawn.y == d.y && c.drawn.w == d.w && c.drawn.h == d.h && c.drawn.x == d.x {
		return c.drawn.view
	}
	d.view = c.vp.View()
	c.drawn = d
	return d.view
}

func (c *contextPane) refresh(toBottom bool) {
	if !c.loaded || c.width <= 0 {
		return
	}
	atBottom := c.vp.AtBottom()
	c.lines = strings.Split(c.render(), "\n")
	c.vp.SetContent(strings.Join(c.lines, "\n"))
	c.content++
	if toBottom || atBottom {
		c.vp.GotoBottom()
	}
}

func (c *contextPane) render() string {
	cv := conversationView{
		Expanded: c.expanded, ExpandKey: "ctrl+e",
		Decision: "▶ decision point: what should the assistant do now?",
		Observed: c.item.Observed, ShowObserved: c.revealed, Tree: &c.tree,
	}
	for _, n := range c.notes {
		cv.Notes = append(cv.Notes, conversationNote{Marker: "[sent back by " + n.Author + "]", Body: n.Body})
	}
	return cv.Render(c.styles, c.item.Context, c.width)
}

// wrapText wraps at spaces only: ids, dates and numbers stay whole.
func wrapText(s string, width int) string {
	return strings.Join(wrapWords(s, width), "\n")
}
