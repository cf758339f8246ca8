package tui

import (
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/goldtrace/goldtrace/review"
)

// TestSetTextEmptiesInPlace: the label form's editors are emptied for every
// item without a new 240 KB line buffer, and keep their focus.
func TestSetTextEmptiesInPlace(t *testing.T) {
	styles := StylesFor(true)
	keys := DefaultKeyMap()
	f := newLabelForm(&styles, &keys.Label)
	for _, focused := range []bool{false, true} {
		ta := f.newTextarea("why")
		if focused {
			ta.Focus()
		}
		for _, s := range []string{"one line", "three\nlines\n", "\n\n\n", "é ✓ two\nlines"} {
			setText(&ta, s)
			if ta.Value() != s {
				t.Fatalf("setText(%q) gave %q", s, ta.Value())
			}
			setText(&ta, "")
			if ta.Value() != "" || ta.LineCount() != 1 || ta.Focused() != focused {
				t.Fatalf("emptied %q: value %q, %d lines, focused %v (was %v)", s, ta.Value(), ta.LineCount(), ta.Focused(), focused)
			}
		}
		setText(&ta, "next")
		if ta.Value() != "next" {
			t.Fatalf("after emptying: %q", ta.Value())
		}
	}

	// What it allocates: an item's rationale typed, then emptied.
	ta := f.newTextarea("why")
	const n = 50
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		setText(&ta, "ok lbl")
		setText(&ta, "")
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 32<<10 {
		t.Errorf("typing and emptying an editor allocates %d KB a time, want < 32 KB", per>>10)
	}
}

// TestRationaleStopsAtTheStoresLimit: a pasted or typed rationale stops at
// review.MaxRationale characters, what a submit would accept.
func TestRationaleStopsAtTheStoresLimit(t *testing.T) {
	styles := StylesFor(true)
	keys := DefaultKeyMap()
	f := newLabelForm(&styles, &keys.Label)
	f.rationale.Focus()
	f.rationale.edit().InsertString(strings.Repeat("é", review.MaxRationale+50))
	f.rationale.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("x")})
	if n := utf8.RuneCountInString(f.rationale.Value()); n != review.MaxRationale {
		t.Fatalf("rationale holds %d characters, want at most %d", n, review.MaxRationale)
	}
}
