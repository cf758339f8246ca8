package tui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/goldtrace/goldtrace/app"
)

// Cell markers: they tell right from wrong without colour (NO_COLOR).
const (
	markRight  = "✓" // diagonal: the observed tool is the gold tool
	markWrong  = "✗" // off the diagonal
	markEmpty  = "·"
	markCursor = "▸"
)

// confusionMatrix shows expected (rows) × predicted (columns) first tools
// with a cell cursor. Tool names are long, so columns are headed by short
// codes (A, B, …, ∅ for no call, ? for an unknown tool) and each row spells
// its code out; the grid scrolls both ways to keep the cursor in view.
type confusionMatrix struct {
	labels   []string
	codes    []string
	nRows    int // rows are labels[:nRows]: gold is never (unknown)
	counts   map[[2]string]int
	maxCount int

	row, col  int // cursor
	top, left int // first row and column shown
	width     int
	height    int
}

func newConfusionMatrix(c app.Confusion) confusionMatrix {
	m := confusionMatrix{labels: c.Labels, counts: map[[2]string]int{}}
	m.codes = classCodes(c.Labels)
	m.nRows = len(c.Labels)
	if m.nRows > 0 && c.Labels[m.nRows-1] == app.ClassUnknown {
		m.nRows--
	}
	for _, cell := range c.Cells {
		m.counts[[2]string{cell.Expected, cell.Predicted}] = cell.Count
		m.maxCount = max(m.maxCount, cell.Count)
	}
	return m
}

// classCodes gives tools A…Z, then AA, AB, …; (none) is ∅ and (unknown) ?.
func classCodes(labels []string) []string {
	out := make([]string, len(labels))
	n := 0
	for i, l := range labels {
		switch l {
		case app.ClassNone:
			out[i] = "∅"
		case app.ClassUnknown:
			out[i] = "?"
		default:
			out[i] = letterCode(n)
			n++
		}
	}
	return out
}

func letterCode(n int) string {
	if n < 26 {
		return string(rune('A' + n))
	}
	return letterCode(n/26-1) + string(rune('A'+n%26))
}

// keepCursor puts the cursor on the cell (expected, predicted) if the new
// labels still have both classes.
func (m *confusionMatrix) keepCursor(expected, predicted string) {
	for i, l := range m.labels {
		if l == expected && i < m.nRows {
			m.row = i
		}
		if l == predicted {
			m.col = i
		}
	}
	m.scroll()
}

// Empty reports whether there is nothing to show.
func (m *confusionMatrix) Empty() bool { return m.nRows == 0 }

// Selected is the cell under the cursor.
func (m *confusionMatrix) Selected() (expected, predicted string, count int) {
	if m.Empty() {
		return "", "", 0
	}
	e, p := m.labels[m.row], m.labels[m.col]
	return e, p, m.counts[[2]string{e, p}]
}

// Move shifts the cursor, staying inside the grid.
func (m *confusionMatrix) Move(dRow, dCol int) {
	if m.Empty() {
		return
	}
	m.row = min(max(m.row+dRow, 0), m.nRows-1)
	m.col = min(max(m.col+dCol, 0), len(m.labels)-1)
	m.scroll()
}

// SetSize sets the box the grid is drawn in.
func (m *confusionMatrix) SetSize(w, h int) {
	m.width, m.height = w, h
	m.scroll()
}

func (m *confusionMatrix) cellWidth() int {
	return max(len(strconv.Itoa(m.maxCount))+2, 4)
}

// labelWidth is the row-label column: code, space, tool name.
func (m *confusionMatrix) labelWidth() int {
	w := 0
	for i, l := range m.labels {
		w = max(w, lipgloss.Width(m.codes[i])+1+lipgloss.Width(l))
	}
	limit := max(m.width/3, 12)
	return min(w+1, limit)
}

func (m *confusionMatrix) visibleCols() int {
	return max((m.width-m.labelWidth()-1)/m.cellWidth(), 1)
}

func (m *confusionMatrix) visibleRows() int { return max(m.height-1, 1) }

func (m *confusionMatrix) scroll() {
	if rows := m.visibleRows(); m.row < m.top {
		m.top = m.row
	} else if m.row >= m.top+rows {
		m.top = m.row - rows + 1
	}
	if cols := m.visibleCols(); m.col < m.left {
		m.left = m.col
	} else if m.col >= m.left+cols {
		m.left = m.col - cols + 1
	}
	m.top = max(min(m.top, m.nRows-m.visibleRows()), 0)
	m.left = max(min(m.left, len(m.labels)-m.visibleCols()), 0)
}

// View draws the header row and the visible rows; "‹" and "›" in the header
// say more columns are off screen, "⋮" that more rows are.
func (m *confusionMatrix) View(s *Styles) string {
	if m.Empty() {
		return ""
	}
	lw, cw := m.labelWidth(), m.cellWidth()
	rows, cols := m.visibleRows(), m.visibleCols()
	lastCol := min(m.left+cols, len(m.labels))
	lastRow := min(m.top+rows, m.nRows)

	var b strings.Builder
	corner := "gold╲seen"
	if m.left > 0 {
		corner = "‹ " + corner
	}
	b.WriteString(s.Muted.Render(padRight(truncate(corner, lw), lw)))
	for j := m.left; j < lastCol; j++ {
		h := fmt.Sprintf("%*s ", cw-1, m.codes[j])
		if j == m.col {
			h = s.Accent.Bold(true).Render(h)
		} else {
			h = s.Muted.Render(h)
		}
		b.WriteString(h)
	}
	if lastCol < len(m.labels) {
		b.WriteString(s.Muted.Render("›"))
	}
	for i := m.top; i < lastRow; i++ {
		b.WriteString("\n")
		name := truncate(m.codes[i]+" "+m.labels[i], lw-1)
		if i == m.row {
			b.WriteString(s.Accent.Bold(true).Render(padRight(name, lw)))
		} else {
			b.WriteString(padRight(name, lw))
		}
		for j := m.left; j < lastCol; j++ {
			b.WriteString(m.cell(s, i, j, cw))
		}
		if i == lastRow-1 && lastRow < m.nRows {
			b.WriteString(s.Muted.Render(" ⋮"))
		}
	}
	return b.String()
}

func (m *confusionMatrix) cell(s *Styles, i, j, cw int) string {
	n := m.counts[[2]string{m.labels[i], m.labels[j]}]
	text, style := fmt.Sprintf("%*s ", cw-1, markEmpty), s.Muted
	switch {
	case n > 0 && i == j:
		text, style = fmt.Sprintf("%*d%s", cw-1, n, markRight), s.OK
	case n > 0:
		text, style = fmt.Sprintf("%*d%s", cw-1, n, markWrong), s.Error
	}
	if i == m.row && j == m.col {
		text = markCursor + text[len(" "):]
		return s.Form.Selected.Render(text)
	}
	return style.Render(text)
}

// truncate cuts s to w cells, ending in "…" when cut.
func truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if lipgloss.Width(s) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && lipgloss.Width(string(r))+1 > w {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// padRight pads s with spaces to w cells.
func padRight(s string, w int) string {
	if n := w - lipgloss.Width(s); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}
