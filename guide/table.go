package guide

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	east "github.com/yuin/goldmark/extension/ast"
)

// tableGap is the column separator's width: " │ ".
const tableGap = 3

// minColumn is the narrowest a column is squeezed to before the table is
// shown as records instead.
const minColumn = 4

// table lays out a GitHub table with its columns fitted to the width:
// columns keep their natural width when they fit, and the widest give way
// first, their cells wrapped. A table with too many columns for the width
// is shown as one record per row, "header: value" a line.
func (r *renderer) table(t *east.Table, width int) []string {
	var rows [][][]word
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		st := style{}
		if _, ok := row.(*east.TableHeader); ok {
			st = r.th.strong
		}
		var cells [][]word
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			var w words
			r.inline(cell, st, &w)
			cells = append(cells, w.done())
		}
		rows = append(rows, cells)
	}
	cols := 0
	for _, row := range rows {
		cols = max(cols, len(row))
	}
	if cols == 0 {
		return nil
	}
	avail := width - tableGap*(cols-1)
	if avail < minColumn*cols {
		return r.records(rows, width)
	}
	widths := columnWidths(rows, cols, avail)
	sep := paint(r.th.border, " │ ")
	var out []string
	for i, row := range rows {
		cells := make([][]string, cols)
		height := 1
		for c := range cols {
			if c < len(row) {
				cells[c] = layout(row[c], widths[c])
			}
			height = max(height, len(cells[c]))
		}
		for l := range height {
			parts := make([]string, cols)
			for c := range cols {
				s := ""
				if l < len(cells[c]) {
					s = cells[c][l]
				}
				parts[c] = align(s, widths[c], alignment(t, c))
			}
			out = append(out, strings.Join(parts, sep))
		}
		if i == 0 && len(rows) > 1 {
			rule := make([]string, cols)
			for c, w := range widths {
				rule[c] = strings.Repeat("─", w)
			}
			out = append(out, paint(r.th.border, strings.Join(rule, "─┼─")))
		}
	}
	return out
}

// columnWidths gives each column its natural width (the widest cell on one
// line) and, while they do not fit in avail, takes a column from the
// widest: first from columns wider than their longest word, so words break
// only when nothing else fits.
func columnWidths(rows [][][]word, cols, avail int) []int {
	widths := make([]int, cols)
	longest := make([]int, cols)
	for _, row := range rows {
		for c, cell := range row {
			line := 0
			for i, w := range cell {
				if i > 0 {
					line++
				}
				line += w.width
				longest[c] = max(longest[c], w.width)
			}
			widths[c] = max(widths[c], line, 1)
		}
	}
	total := 0
	for _, w := range widths {
		total += w
	}
	for total > avail {
		pick := -1
		for c, w := range widths {
			if w > longest[c] && w > minColumn && (pick < 0 || w > widths[pick]) {
				pick = c
			}
		}
		if pick < 0 {
			for c, w := range widths {
				if w > minColumn && (pick < 0 || w > widths[pick]) {
					pick = c
				}
			}
		}
		if pick < 0 {
			break
		}
		widths[pick]--
		total--
	}
	return widths
}

func alignment(t *east.Table, c int) east.Alignment {
	if c < len(t.Alignments) {
		return t.Alignments[c]
	}
	return east.AlignNone
}

// align pads a rendered cell line to width.
func align(s string, width int, a east.Alignment) string {
	pad := max(width-ansi.StringWidth(s), 0)
	switch a {
	case east.AlignRight:
		return strings.Repeat(" ", pad) + s
	case east.AlignCenter:
		return strings.Repeat(" ", pad/2) + s + strings.Repeat(" ", pad-pad/2)
	}
	return s + strings.Repeat(" ", pad)
}

// records shows each body row as "header: value" lines, a blank line
// between rows.
func (r *renderer) records(rows [][][]word, width int) []string {
	var out []string
	header := rows[0]
	for i, row := range rows[1:] {
		if i > 0 {
			out = append(out, "")
		}
		for c, cell := range row {
			var ws []word
			if c < len(header) && len(header[c]) > 0 {
				ws = append(ws, header[c]...)
				last := &ws[len(ws)-1]
				last.pieces = append(last.pieces[:len(last.pieces):len(last.pieces)], piece{":", r.th.strong})
				last.width++
			}
			ws = append(ws, cell...)
			out = append(out, layout(ws, width)...)
		}
	}
	if len(rows) == 1 {
		out = layout(joinWords(header), width)
	}
	return out
}

// joinWords puts cells one after another on a line.
func joinWords(cells [][]word) []word {
	var ws []word
	for _, c := range cells {
		ws = append(ws, c...)
	}
	return ws
}
