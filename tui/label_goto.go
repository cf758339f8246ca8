package tui

import (
	"slices"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/goldtrace/goldtrace/review"
)

// Moves of the label form that go straight to where the work is: the next
// field a check flags, a field named by part of its name.

// problemStops are the places of the label a warning or an error points
// to, in form order: (call, stop) pairs, stop -1 for a call's arguments
// as a whole (JSON text, or a field the form does not show).
func (f *labelForm) problemStops() [][2]int {
	var out [][2]int
	if f.noTool {
		return nil
	}
	for i, ce := range f.calls {
		if ce.tool == "" {
			continue
		}
		all := append(append([]review.Problem(nil), ce.problems...), ce.warnings...)
		if len(all) == 0 {
			continue
		}
		if !ce.useForm {
			out = append(out, [2]int{i, -1})
			continue
		}
		seen := map[int]bool{}
		var stops []int
		for _, p := range all {
			st := ce.form.stopFor(p.Field)
			if !seen[st] {
				seen[st] = true
				stops = append(stops, st)
			}
		}
		slices.Sort(stops)
		for _, st := range stops {
			out = append(out, [2]int{i, st})
		}
	}
	return out
}

// NextProblem moves the focus to the next field carrying a warning or an
// error after the focused one, cycling round the whole label; false when
// there is none.
func (f *labelForm) NextProblem() (bool, tea.Cmd) {
	places := f.problemStops()
	if len(places) == 0 {
		return false, nil
	}
	here := [2]int{f.cur, -2}
	switch {
	case f.focus == fieldArgs && f.calls[f.cur].useForm:
		here[1] = f.calls[f.cur].form.at
	case f.focus == fieldArgs:
		here[1] = -1
	case f.focus == fieldRationale:
		here = [2]int{len(f.calls), 0} // after every call
	}
	next := places[0] // round to the first
	for _, p := range places {
		if p[0] > here[0] || p[0] == here[0] && p[1] > here[1] {
			next = p
			break
		}
	}
	cmd := f.setFocus(next[0], fieldArgs)
	if ce := f.calls[next[0]]; ce.useForm && next[1] >= 0 {
		cmd = ce.form.FocusStop(next[1])
	}
	return true, cmd
}

// GoToField opens the focused call's "go to field" list (the first call's
// from the tool or the rationale); false when the call has no form.
func (f *labelForm) GoToField() (bool, tea.Cmd) {
	if f.noTool {
		return false, nil
	}
	ce := f.calls[f.cur]
	if !ce.useForm || ce.form == nil || len(ce.form.stops) == 0 {
		return false, nil
	}
	var cmd tea.Cmd
	if f.focus != fieldArgs {
		cmd = f.setFocus(f.cur, fieldArgs)
	}
	ce.form.openJump()
	return true, cmd
}
