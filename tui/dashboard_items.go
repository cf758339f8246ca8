package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/viewport"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// cellList is the items of one confusion cell, or of one expected tool
// (failing first), with a cursor.
type cellList struct {
	expected, predicted string
	tool                string        // set: the items whose gold tool is this
	from                dashboardMode // where esc goes back to
	rows                []int         // indexes into app.Dashboard.Items
	cellCursor                        // over rows
	data                *app.Dashboard
}

// refill reads the cell's items from d, keeping the cursor on the same item
// when it is still there.
func (l *cellList) refill(d *app.Dashboard) {
	var keep string
	if l.cursor < len(l.rows) && l.data != nil {
		keep = l.data.Items[l.rows[l.cursor]].ID
	}
	l.data = d
	if l.tool != "" {
		l.rows = d.ToolItems(l.tool)
	} else {
		l.rows = d.CellItems(l.expected, l.predicted)
	}
	l.cursor = min(l.cursor, max(len(l.rows)-1, 0))
	for i, r := range l.rows {
		if d.Items[r].ID == keep {
			l.cursor = i
		}
	}
}

func (l *cellList) move(d, visible int) {
	if len(l.rows) == 0 {
		return
	}
	l.cellCursor.move(d, len(l.rows), visible)
}

func (l *cellList) selected() (int, bool) {
	if l.cursor >= len(l.rows) {
		return 0, false
	}
	return l.rows[l.cursor], true
}

// cellCursor is a cursor over a scrolled list.
type cellCursor struct{ cursor, top int }

func (c *cellCursor) move(d, n, visible int) {
	c.cursor = min(max(c.cursor+d, 0), max(n-1, 0))
	if c.cursor < c.top {
		c.top = c.cursor
	} else if c.cursor >= c.top+visible {
		c.top = c.cursor - visible + 1
	}
}

// cellRows is how many items fit under the list's title and header.
func (p *DashboardPage) cellRows() int { return max(p.height-3, 1) }

func (p *DashboardPage) viewCell() string {
	s := &p.c.Styles
	l := &p.cell
	title := s.Title.Render(fmt.Sprintf("gold %s × seen %s", l.expected, l.predicted))
	n := plural(len(l.rows), "item")
	switch {
	case l.tool != "":
		title = s.Title.Render("gold " + l.tool)
		failing := 0
		for _, r := range l.rows {
			if !p.data.Items[r].Correct {
				failing++
			}
		}
		n += fmt.Sprintf(" · %d failing, listed first", failing)
	case l.expected == l.predicted:
		n += " · same first tool " + markRight
	default:
		n += " · first tool differs " + markWrong
	}
	lines := []string{title, s.Muted.Render(n)}
	if len(l.rows) == 0 {
		lines = append(lines, "", s.Muted.Render("No items here any more (the gold changed). esc goes back."))
		return strings.Join(lines, "\n")
	}
	idW, trW := 21, 24
	cohortW := 12
	lines = append(lines, s.Muted.Render(padRight("  item", idW+2)+padRight("trace#turn", trW)+padRight("cohort", cohortW)+"verdict"))
	rows := p.cellRows()
	if l.top > l.cursor || l.cursor >= l.top+rows {
		l.top = max(l.cursor-rows+1, 0)
	}
	for i := l.top; i < min(l.top+rows, len(l.rows)); i++ {
		it := p.data.Items[l.rows[i]]
		verdict := markRight + " correct"
		if !it.Correct {
			verdict = markWrong + " " + it.Kind
		}
		line := padRight(it.ID, idW) + padRight(truncate(fmt.Sprintf("%s#%d", it.TraceID, it.Turn), trW-1), trW) +
			padRight(truncate(orDash(it.Cohort), cohortW-1), cohortW) + verdict
		line = truncate(line, p.width-2)
		if i == l.cursor {
			lines = append(lines, s.Form.Selected.Render(markCursor+" "+line))
		} else {
			lines = append(lines, "  "+line)
		}
	}
	return strings.Join(lines, "\n")
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// itemView is one gold item, read-only: the verdict and the scorer's
// explanation, the gold answer, the observed calls and the context.
type itemView struct {
	id      string
	item    app.DashboardItem
	context *trace.Item // nil until loaded
	loadErr error
	view    viewport.Model
}

func (v *itemView) loaded(msg dashboardItemMsg, s *Styles) {
	if msg.err != nil {
		v.loadErr = msg.err
	} else {
		it := msg.item
		v.context = &it
	}
	v.view.SetContent(v.render(s, v.view.Width))
}

func (v *itemView) render(s *Styles, width int) string {
	g := v.item
	var b []string
	head := fmt.Sprintf("%s · trace %s turn %d · cohort %s · gold %s", g.ID, g.TraceID, g.Turn, orDash(g.Cohort), g.Status)
	b = append(b, s.Title.Render(g.ID)+s.Muted.Render(strings.TrimPrefix(head, g.ID)))
	if g.Correct {
		b = append(b, s.OK.Render(markRight+" correct: the observed calls match the gold"))
	} else {
		b = append(b, s.Error.Render(markWrong+" "+g.Kind)+" "+wrapText(g.Message, width-len(g.Kind)-3))
	}
	b = append(b, "", s.Pane.Title.Render("Gold"))
	b = append(b, expectedLines(g.Expected, width)...)
	for i, alt := range g.Acceptable {
		mark := ""
		if g.List == i+1 {
			mark = " (scored against this one)"
		}
		b = append(b, s.Muted.Render(fmt.Sprintf("also acceptable #%d%s:", i+1, mark)))
		b = append(b, expectedLines(alt, width)...)
	}
	if g.Rationale != "" {
		b = append(b, s.Muted.Render("why: ")+wrapText(oneLine(g.Rationale), width-5))
	}
	b = append(b, "", s.Pane.Title.Render("Observed (production model)"))
	if len(g.Observed) == 0 {
		b = append(b, "  no tool call")
	}
	for _, c := range g.Observed {
		args := string(c.Args)
		if c.Unparseable {
			args += "  (unparseable)"
		}
		b = append(b, callLine(c.Tool, args, width))
	}
	b = append(b, "", s.Pane.Title.Render("Context"))
	switch {
	case v.loadErr != nil:
		b = append(b, s.Error.Render("could not load the conversation: "+oneLine(v.loadErr.Error())))
	case v.context == nil:
		b = append(b, s.Muted.Render("loading…"))
	default:
		b = append(b, contextLines(s, v.context.Context, width)...)
	}
	return strings.Join(b, "\n")
}

func expectedLines(calls []gold.ExpectedCall, width int) []string {
	if len(calls) == 0 {
		return []string{"  no tool call"}
	}
	var out []string
	for _, c := range calls {
		out = append(out, callLine(c.Tool, string(c.Args), width))
		for name, rule := range c.ArgRules {
			if rule.Match != "" && rule.Match != gold.MatchExact || rule.Optional || len(rule.AnyOf) > 0 {
				rb, _ := json.Marshal(rule)
				out = append(out, "      "+name+": "+string(rb))
			}
		}
	}
	return out
}

// callLine is one call, its arguments wrapped under it in full: the
// verdict may turn on any of them.
func callLine(tool, args string, width int) string {
	wrapped := wrapText(oneLine(args), width-4)
	return "  " + tool + "\n    " + strings.ReplaceAll(wrapped, "\n", "\n    ")
}

// contextLines is the conversation before the decision, through the
// renderer the label and adjudication screens use: tool results cut to a
// few lines (the gold and the observed calls above are what is judged).
func contextLines(s *Styles, msgs []trace.Message, width int) []string {
	if len(msgs) == 0 {
		return []string{s.Muted.Render("(no messages before this turn)")}
	}
	return strings.Split(conversationView{}.Render(s, msgs, width), "\n")
}
