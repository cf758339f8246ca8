package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/goldtrace/goldtrace/app"
)

// wideConfusion has n tools (tool_00…), (none) and (unknown), each class
// mostly right and some calls to an unknown tool.
func wideConfusion(n int) app.Confusion {
	var c app.Confusion
	for i := range n {
		name := fmt.Sprintf("tool_%02d_with_a_long_name", i)
		c.Labels = append(c.Labels, name)
		c.Cells = append(c.Cells, app.ConfusionCell{Expected: name, Predicted: name, Count: 10 + i},
			app.ConfusionCell{Expected: name, Predicted: app.ClassUnknown, Count: 1})
	}
	c.Labels = append(c.Labels, app.ClassNone, app.ClassUnknown)
	return c
}

func TestConfusionMatrixCodesAndRows(t *testing.T) {
	m := newConfusionMatrix(wideConfusion(28))
	tests := []struct{ label, code string }{
		{"tool_00_with_a_long_name", "A"}, {"tool_25_with_a_long_name", "Z"},
		{"tool_26_with_a_long_name", "AA"}, {app.ClassNone, "∅"}, {app.ClassUnknown, "?"},
	}
	for _, tt := range tests {
		for i, l := range m.labels {
			if l == tt.label && m.codes[i] != tt.code {
				t.Errorf("%s has code %q, want %q", l, m.codes[i], tt.code)
			}
		}
	}
	if m.nRows != 29 {
		t.Errorf("%d rows, want 29: gold is never (unknown)", m.nRows)
	}
}

func TestConfusionMatrixScrollsAt80Columns(t *testing.T) {
	s := StylesFor(true)
	m := newConfusionMatrix(wideConfusion(20))
	m.SetSize(80, 8)
	view := ansi.Strip(m.View(&s))
	lines := strings.Split(view, "\n")
	if len(lines) != 8 {
		t.Fatalf("%d lines, want 8:\n%s", len(lines), view)
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > 80 {
			t.Errorf("line is %d cells wide: %q", w, l)
		}
	}
	if !strings.Contains(lines[0], "›") || !strings.Contains(view, "⋮") {
		t.Errorf("no sign of more columns and rows:\n%s", view)
	}
	// Walk to the far corner: the view follows the cursor.
	for range 30 {
		m.Move(1, 1)
	}
	exp, pred, n := m.Selected()
	if exp != app.ClassNone || pred != app.ClassUnknown || n != 0 {
		t.Errorf("corner is %s×%s (%d), want (none)×(unknown)", exp, pred, n)
	}
	view = ansi.Strip(m.View(&s))
	if !strings.Contains(view, markCursor) || !strings.Contains(view, "‹") || !strings.Contains(view, "∅ (none)") {
		t.Errorf("cursor scrolled out of view:\n%s", view)
	}
}
