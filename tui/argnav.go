package tui

import (
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// empty reports whether stop s still needs a value and has none: a field
// that must be present and is unset (or empty text), or "+ add" of a
// required list without elements.
func (f *argForm) empty(s argStop) bool {
	if !f.needed(s) {
		return false
	}
	v := f.root.at(s.path)
	if s.add {
		return len(v.elems) == 0
	}
	return !v.present || textual(s, v) && v.text == ""
}

// nextEmpty is the first stop after the focus (wrapping round) that needs
// a value and has none; ok is false when every needed field has one.
func (f *argForm) nextEmpty() (int, bool) {
	n := len(f.stops)
	for k := 1; k <= n; k++ {
		i := (f.at + k) % n
		if i == f.at && k < n {
			continue
		}
		if f.empty(f.stops[i]) {
			return i, true
		}
	}
	return 0, false
}

// stopName is how a stop is named to the reviewer and by the validator:
// the field's path (flights[1].date); "+ add" is named by its list.
func (f *argForm) stopName(s argStop) string { return f.root.name(s.path) }

// stopFor is the stop a problem about field belongs to: the field itself,
// the "+ add" of a list named so, else the first field inside it; -1 when
// the form has no such field.
func (f *argForm) stopFor(field string) int {
	inside := -1
	for i, s := range f.stops {
		name := f.stopName(s)
		switch {
		case name == field && !s.extra:
			return i
		case inside < 0 && field != "" && (strings.HasPrefix(name, field+".") || strings.HasPrefix(name, field+"[")):
			inside = i
		}
	}
	return inside
}

// FocusStop focuses stop i (out of range: nothing).
func (f *argForm) FocusStop(i int) tea.Cmd {
	if i < 0 || i >= len(f.stops) {
		return nil
	}
	return f.focus(i)
}

// stepElem moves the focus to the same field of the previous or next
// element of the innermost list holding it (from "+ add": the last
// element); false when there is no such element.
func (f *argForm) stepElem(delta int) (bool, tea.Cmd) {
	if len(f.stops) == 0 {
		return false, nil
	}
	s := f.stops[f.at]
	var list []int
	var to int
	if l, i, ok := f.element(); ok {
		list, to = l, i+delta
	} else if s.add && delta < 0 {
		list, to = s.path, len(f.root.at(s.path).elems)-1
	} else {
		return false, nil
	}
	if to < 0 || to >= len(f.root.at(list).elems) {
		return false, nil
	}
	want := slices.Clone(s.path)
	if len(want) > len(list) && !s.add {
		want[len(list)] = to
	}
	first := -1
	for i, st := range f.stops {
		if len(st.path) <= len(list) || !slices.Equal(st.path[:len(list)], list) || st.path[len(list)] != to {
			continue
		}
		if !s.add && slices.Equal(st.path, want) && st.add == s.add && st.extra == s.extra {
			return true, f.focus(i)
		}
		if first < 0 {
			first = i
		}
	}
	if first < 0 {
		return false, nil
	}
	return true, f.focus(first)
}

// fieldJump is the open "go to field" list: stops whose name matches what
// is typed.
type fieldJump struct {
	filter  string
	matches []int // stop indices
	sel     int
}

func (f *argForm) openJump() {
	f.pick = nil
	f.jump = &fieldJump{}
	f.refilterJump()
}

// refilterJump keeps the stops whose name holds the filter's letters in
// order (dte finds date); names holding the filter whole come first.
func (f *argForm) refilterJump() {
	j := f.jump
	j.matches = j.matches[:0]
	want := strings.ToLower(j.filter)
	var loose []int
	for i, s := range f.stops {
		name := strings.ToLower(f.stopName(s))
		switch {
		case strings.Contains(name, want):
			j.matches = append(j.matches, i)
		case subsequence(name, want):
			loose = append(loose, i)
		}
	}
	j.matches = append(j.matches, loose...)
	j.sel = min(j.sel, max(len(j.matches)-1, 0))
}

// subsequence reports whether every rune of want occurs in s in order.
func subsequence(s, want string) bool {
	rs := []rune(s)
	i := 0
	for _, r := range want {
		for i < len(rs) && rs[i] != r {
			i++
		}
		if i == len(rs) {
			return false
		}
		i++
	}
	return true
}

func (f *argForm) updateJump(k tea.KeyMsg) (changed bool, leave int, cmd tea.Cmd) {
	j := f.jump
	switch {
	case k.Type == tea.KeyEsc || k.Type == tea.KeyCtrlC:
		f.jump = nil
	case k.Type == tea.KeyEnter || k.Type == tea.KeyTab:
		f.jump = nil
		if len(j.matches) > 0 {
			return false, 0, f.focus(j.matches[j.sel])
		}
	case k.Type == tea.KeyUp:
		j.sel = max(j.sel-1, 0)
	case k.Type == tea.KeyDown:
		j.sel = min(j.sel+1, max(len(j.matches)-1, 0))
	case k.Type == tea.KeyBackspace:
		if r := []rune(j.filter); len(r) > 0 {
			j.filter = string(r[:len(r)-1])
			j.sel = 0
			f.refilterJump()
		}
	case k.Type == tea.KeyRunes || k.Type == tea.KeySpace:
		j.filter += string(k.Runes)
		if k.Type == tea.KeySpace && len(k.Runes) == 0 {
			j.filter += " "
		}
		j.sel = 0
		f.refilterJump()
	}
	return false, 0, nil
}

// nextNeeded is where enter goes: the next field that needs a value and
// has none, else the next one the validator finds wrong, else out of the
// form (leave 1: to the rationale) when it is complete and valid.
func (f *argForm) nextNeeded() (leave int, cmd tea.Cmd) {
	if i, ok := f.nextEmpty(); ok {
		return 0, f.focus(i)
	}
	var wrong []int
	for _, field := range f.errs {
		if i := f.stopFor(field); i >= 0 {
			wrong = append(wrong, i)
		}
	}
	if i, ok := nextAfter(wrong, f.at, len(f.stops)); ok {
		return 0, f.focus(i)
	}
	return 1, nil
}

// nextAfter is the first of stops after at, wrapping round over n stops
// (at itself last); ok is false when stops is empty.
func nextAfter(stops []int, at, n int) (int, bool) {
	best, bestD := 0, n+1
	for _, i := range stops {
		d := (i - at + n) % n
		if d == 0 {
			d = n
		}
		if d < bestD {
			best, bestD = i, d
		}
	}
	return best, bestD <= n
}
