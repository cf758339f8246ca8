package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

func TestAdjudicateGoldenViews(t *testing.T) {
	tests := []struct {
		name   string
		w, h   int
		setup  func(t *testing.T, f adjFixture)
		keys   []string
		before func(p *AdjudicatePage)
	}{
		{"browse_80x24", 80, 24, adjArgsDispute, nil, nil},
		{"browse_120x40", 120, 40, adjArgsDispute, nil, nil},
		{"decision_120x40", 120, 40, func(t *testing.T, f adjFixture) { f.disputeDecision(t, f.items[0]) }, nil, nil},
		{"reason_80x24", 80, 24, adjArgsDispute, []string{"2", "type:bob has the id"}, nil},
		{"rules_80x24", 80, 24, adjArgsDispute, []string{"r", "2", "space", "down", "space"}, nil},
		{"editor_120x40", 120, 40, adjArgsDispute, []string{"e", "1"}, nil},
		{"editor_problem_80x24", 80, 24, adjArgsDispute, []string{"e", "1", "ctrl+s"}, func(p *AdjudicatePage) {
			p.editor.SetValue(`[{"tool":"get_order_status","args":{"order":"ORD-20000"}}]`)
		}},
		{"help_80x24", 80, 24, adjArgsDispute, []string{"?"}, nil},
		{"empty_80x24", 80, 24, func(*testing.T, adjFixture) {}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newAdjFixture(t, 1)
			tt.setup(t, f)
			r, p := newAdjRoot(t, f, AdjudicateOptions{}, tt.w, tt.h)
			for _, k := range tt.keys {
				if k == "ctrl+s" && tt.before != nil {
					tt.before(p)
				}
				adjKeys(r, k)
			}
			checkGolden(t, "adjudicate_"+tt.name, r)
		})
	}
}

func adjArgsDispute(t *testing.T, f adjFixture) { f.disputeArgs(t, f.items[0]) }

// Every screen fills the window exactly, no line wider than it, in every
// mode and after resizing back and forth.
func TestAdjudicateLayoutFitsAndReflows(t *testing.T) {
	modes := [][]string{nil, {"2"}, {"r", "2"}, {"e", "1"}, {"b"}, {"s"}, {"?"}}
	for _, size := range [][2]int{{80, 24}, {100, 30}, {120, 40}, {90, 20}} {
		for _, keys := range modes {
			f := newAdjFixture(t, 1)
			f.disputeArgs(t, f.items[0])
			r, _ := newAdjRoot(t, f, AdjudicateOptions{}, size[0], size[1])
			adjKeys(r, keys...)
			lines := strings.Split(r.View(), "\n")
			if len(lines) != size[1] {
				t.Errorf("%dx%d %v: %d lines", size[0], size[1], keys, len(lines))
			}
			for i, l := range lines {
				if w := ansi.StringWidth(l); w > size[0] {
					t.Errorf("%dx%d %v: line %d is %d wide: %q", size[0], size[1], keys, i, w, ansi.Strip(l))
				}
			}
		}
	}
	f := newAdjFixture(t, 1)
	f.disputeArgs(t, f.items[0])
	r, _ := newAdjRoot(t, f, AdjudicateOptions{}, 80, 24)
	want := adjView(r)
	r.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	if v := adjView(r); !strings.Contains(v, "[1] alice") || !strings.Contains(v, "│ [2] bob") {
		t.Errorf("120 columns should show the labels side by side:\n%s", v)
	}
	r.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if got := adjView(r); got != want {
		t.Errorf("resizing back changed the screen:\n%s\nwant\n%s", got, want)
	}
}
