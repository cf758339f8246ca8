package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// formLine is one line of the form: a field (stop ≥ 0) or a heading.
type formLine struct {
	name  string
	value string
	stop  int
	depth int
}

// View draws the form in exactly its height: the fields around the focus,
// and under the focused field what it wants and which keys work there,
// wrapped (never cut) to the width.
func (f *argForm) View() string {
	if f.pick != nil {
		return fitLines(f.pickView(), f.height)
	}
	if f.jump != nil {
		return fitLines(f.jumpView(), f.height)
	}
	lines := f.lines()
	nameW := 0
	for _, l := range lines {
		nameW = max(nameW, ansi.StringWidth(l.name)+2*l.depth)
	}
	nameW = min(nameW, max(f.width/2-2, 8))
	var rows []string
	focusFirst, focusLast := 0, 0
	for _, l := range lines {
		rows = append(rows, f.lineView(l, nameW))
		if l.stop == f.at && l.stop >= 0 {
			focusFirst = len(rows) - 1
			rows = append(rows, f.hintLines()...)
			focusLast = len(rows) - 1
		}
	}
	if len(lines) == 0 {
		rows = append(rows, f.styles.Muted.Render("this tool takes no arguments"))
	}
	// Keep the focused field and its hint in view, the field first.
	if focusLast >= f.offset+f.height {
		f.offset = focusLast - f.height + 1
	}
	if focusFirst < f.offset || focusFirst >= f.offset+f.height {
		f.offset = focusFirst
	}
	f.offset = max(min(f.offset, len(rows)-f.height), 0)
	return fitLines(strings.Join(rows[f.offset:], "\n"), f.height)
}

// hintIndent is how far the hint under a field is indented.
const hintIndent = 4

func (f *argForm) lineView(l formLine, nameW int) string {
	s := f.styles
	mark := " "
	nameStyle := s.Form.Label
	if f.focused && l.stop == f.at && l.stop >= 0 {
		mark = "▸"
		nameStyle = s.Form.FocusedLabel
	}
	name := strings.Repeat("  ", l.depth) + l.name
	name = ansi.Truncate(name, nameW, "…")
	pad := strings.Repeat(" ", max(nameW-ansi.StringWidth(name), 0)+1)
	room := max(f.width-nameW-2, 4)
	return mark + nameStyle.Render(name) + pad + ansi.Truncate(l.value, room, "…")
}

// lines lays out every field of the value in stop order.
func (f *argForm) lines() []formLine {
	var out []formLine
	stop := 0
	// elem is "1. " for the first field of a list's object element (the
	// element's number), "   " for its other fields, "" elsewhere.
	var walk func(v *argNode, name string, depth int, elem string)
	walk = func(v *argNode, name string, depth int, elem string) {
		switch v.kind() {
		case argObject:
			lead := ""
			switch {
			case elem != "":
				lead = elem
			case name != "" && len(v.fields) > 0:
				out = append(out, formLine{name: name, value: "", stop: -1, depth: depth})
				depth++
			}
			for i, fl := range v.fields {
				p := v.s.props[i]
				n := p.name
				if !p.required {
					n += "?"
				}
				walk(fl, lead+n, depth, "")
				lead = strings.Repeat(" ", ansi.StringWidth(lead))
			}
			if v.extra != "" {
				out = append(out, formLine{name: "(other fields)", value: f.valueView(stop, v, true), stop: stop, depth: depth})
				stop++
			}
		case argArray:
			if len(v.elems) > 0 {
				out = append(out, formLine{name: name, value: f.styles.Muted.Render(fmt.Sprintf("%d in the list", len(v.elems))), stop: -1, depth: depth})
				for j, e := range v.elems {
					walk(e, fmt.Sprintf("%d.", j+1), depth+1, fmt.Sprintf("%d. ", j+1))
				}
				out = append(out, formLine{name: "+ add", value: f.addHint(stop, false), stop: stop, depth: depth + 1})
			} else {
				out = append(out, formLine{name: name, value: f.addHint(stop, true), stop: stop, depth: depth})
			}
			stop++
		default:
			out = append(out, formLine{name: name, value: f.valueView(stop, v, false), stop: stop, depth: depth})
			stop++
		}
	}
	walk(f.root, "", 0, "")
	return out
}

func (f *argForm) addHint(stop int, empty bool) string {
	switch {
	case f.focused && stop == f.at && empty:
		if sug := f.suggestion(f.stops[stop]); sug != nil {
			return f.styles.Accent.Render("enter: the named ones · type adds one · ctrl+f picks")
		}
		return f.styles.Accent.Render("enter adds · ctrl+f picks")
	case f.focused && stop == f.at:
		return f.styles.Accent.Render("enter adds · ctrl+f picks")
	case empty:
		return f.styles.Muted.Render("(none yet: enter adds)")
	}
	return ""
}

func (f *argForm) valueView(stop int, v *argNode, extra bool) string {
	s := f.styles
	focused := f.focused && stop == f.at
	if focused && (extra || textual(f.stops[stop], v)) {
		return f.in.View()
	}
	if extra {
		return v.extra
	}
	if !v.present {
		switch {
		case v.kind() == argEnum && focused:
			return f.enumView(v)
		case focused:
			return s.Muted.Render("(not set: " + f.editHint(v) + ")")
		}
		return s.Muted.Render("—")
	}
	switch v.kind() {
	case argText:
		if v.text == "" {
			return s.Muted.Render(`""`)
		}
		return v.text
	case argBool:
		if v.b {
			return "true"
		}
		return "false"
	case argNull:
		return "null"
	case argEnum:
		if focused {
			return f.enumView(v)
		}
		return enumLabel(json.RawMessage(v.text))
	}
	return v.text
}

// enumView lists the choices with the current one marked.
func (f *argForm) enumView(v *argNode) string {
	s := f.styles
	cur := v.s.enumIndex(v.text)
	parts := make([]string, len(v.s.enum))
	for i, e := range v.s.enum {
		label := enumLabel(e)
		if i == cur {
			parts[i] = s.Form.Selected.Render("[" + label + "]")
		} else {
			parts[i] = s.Muted.Render(label)
		}
	}
	return strings.Join(parts, " ")
}

func (f *argForm) editHint(v *argNode) string {
	switch v.kind() {
	case argBool:
		return "space toggles, y/n"
	case argEnum:
		return "type to choose, ←/→"
	case argNull:
		return "space sets null"
	}
	return "type"
}

// hintLines say what the focused field is, its description and the keys
// that work there, wrapped under it; none when the form has no focus.
func (f *argForm) hintLines() []string {
	s := f.styles
	st, v := f.current()
	if !f.focused || v == nil && !st.add {
		return nil
	}
	var parts []string
	switch {
	case st.extra:
		parts = append(parts, "fields the schema does not declare, as JSON")
	case st.add:
		parts = append(parts, f.root.name(st.path)+": list of "+v.s.items.typeName()+"s")
		if sug := f.suggestion(st); sug != nil {
			list := sug.value.([]any)
			shown := make([]string, len(list))
			for i, el := range list {
				shown[i] = objectText(el, v.s.items, false)
			}
			parts = append(parts, "enter puts the "+itoa(len(list))+" the conversation names: "+strings.Join(shown, " | "))
		}
		if v.s.desc != "" {
			parts = append(parts, oneLine(v.s.desc))
		}
	default:
		parts = append(parts, f.root.name(st.path)+": "+v.s.typeName())
		if why := v.reason(); why != "" {
			parts = append(parts, "JSON because "+why)
		}
		if v.s.desc != "" {
			parts = append(parts, oneLine(v.s.desc))
		}
	}
	keys := []string{"ctrl+f pick"}
	if _, _, ok := f.element(); ok {
		keys = append(keys, "ctrl+x remove", "ctrl+↑/↓ other element")
	}
	text := strings.Join(parts, " · ") + " · " + strings.Join(keys, " · ")
	indent := strings.Repeat(" ", hintIndent)
	var out []string
	for _, l := range wrapWords(text, max(f.width-hintIndent, 10)) {
		out = append(out, indent+s.Form.Hint.Render(l))
	}
	return out
}

// pickView is the open list of values to copy from the conversation.
func (f *argForm) pickView() string { return strings.Join(f.pickLines(f.height), "\n") }

// pickLines are the picker's lines, at most height.
func (f *argForm) pickLines(height int) []string {
	s := f.styles
	p := f.pick
	st := p.target
	where := f.root.name(st.path)
	if st.add {
		where = "a new element of " + where
	}
	head := s.Accent.Render("pick for "+where+": ") + p.filter + s.Muted.Render("▏ type to filter · enter inserts · esc")
	lines := wrapStyled(head, f.width)
	if len(p.matches) == 0 {
		lines = append(lines, s.Muted.Render("  nothing in the conversation fits here"))
	}
	// The highlighted value is shown whole, wrapped, with where it comes
	// from; the others one line each around it.
	rows := max(height-len(lines), 1)
	first := max(min(p.sel-rows/2, len(p.matches)-rows), 0)
	for i := first; i < len(p.matches) && len(lines) < height; i++ {
		pv := p.matches[i]
		from := pv.source
		if pv.key != "" {
			from = pv.key + " · " + from
		}
		text := f.pickText(pv)
		if i != p.sel {
			lines = append(lines, ansi.Truncate("  "+text+"  "+s.Muted.Render(from), f.width, "…"))
			continue
		}
		for k, l := range wrapWords(text+"  ("+from+")", max(f.width-2, 10)) {
			mark := "  "
			if k == 0 {
				mark = "▸ "
			}
			lines = append(lines, s.Form.Selected.Render(mark+l))
		}
	}
	return lines
}

// pickText shows an object as the fields a pick would fill, in form order
// ("flight_number HAT069 · date 2024-05-26"), a list as its objects so
// ("2: HAT069 · 2024-05-20 | HAT258 · 2024-05-26"), anything else as itself.
func (f *argForm) pickText(pv pickValue) string {
	if pv.shape != nil {
		return "whole " + f.root.name(pv.into) + ": " + objectText(pv.value, pv.shape, true)
	}
	target, _ := f.pickTarget()
	if target == nil || target.kind != argObject {
		return pv.text
	}
	if list, ok := pv.value.([]any); ok {
		parts := make([]string, len(list))
		for i, el := range list {
			parts[i] = objectText(el, target, false)
		}
		return "list of " + itoa(len(list)) + ": " + strings.Join(parts, " | ")
	}
	return objectText(pv.value, target, true)
}

// objectText is an object's declared fields in form order, with their
// names (or only the values, for the elements of a list).
func objectText(x any, target *argSchema, names bool) string {
	m, ok := x.(map[string]any)
	if !ok {
		return jsonLine(x)
	}
	var parts []string
	for _, p := range target.props {
		if v, ok := m[p.name]; ok {
			text, isText := v.(string)
			if !isText {
				text = jsonLine(v)
			}
			if names {
				text = p.name + " " + text
			}
			parts = append(parts, text)
		}
	}
	return strings.Join(parts, " · ")
}

// jumpView is the open "go to field" list: each matching field's name and
// value, the highlighted one marked.
func (f *argForm) jumpView() string { return strings.Join(f.jumpLines(f.height), "\n") }

// jumpLines are the go-to list's lines, at most height.
func (f *argForm) jumpLines(height int) []string {
	s := f.styles
	j := f.jump
	head := s.Accent.Render("go to field: ") + j.filter + s.Muted.Render("▏ type part of its name · enter goes · esc")
	lines := wrapStyled(head, f.width)
	if len(j.matches) == 0 {
		lines = append(lines, s.Muted.Render("  no field is named so"))
	}
	rows := max(height-len(lines), 1)
	first := max(min(j.sel-rows/2, len(j.matches)-rows), 0)
	nameW := 0
	for _, i := range j.matches {
		nameW = max(nameW, ansi.StringWidth(f.jumpName(i)))
	}
	nameW = min(nameW, max(f.width/2, 8))
	for k := first; k < len(j.matches) && len(lines) < height; k++ {
		i := j.matches[k]
		name := f.jumpName(i)
		pad := strings.Repeat(" ", max(nameW-ansi.StringWidth(name), 0)+2)
		value := s.Muted.Render(f.stopSummary(i))
		line := "  " + name + pad + value
		if k == j.sel {
			line = s.Form.Selected.Render("▸ "+name) + pad + value
		}
		lines = append(lines, ansi.Truncate(line, f.width, "…"))
	}
	return lines
}

// jumpName is a stop's name in the go-to list ("flights + add" for a
// list's add line).
func (f *argForm) jumpName(i int) string {
	st := f.stops[i]
	name := f.stopName(st)
	switch {
	case st.add:
		name += " + add"
	case st.extra:
		name += " (other fields)"
	}
	return name
}

// stopSummary is a stop's value on one line, for lists that name fields.
func (f *argForm) stopSummary(i int) string {
	st := f.stops[i]
	v := f.root.at(st.path)
	switch {
	case v == nil:
		return ""
	case st.add:
		return fmt.Sprintf("%d in the list", len(v.elems))
	case st.extra:
		return v.extra
	case !v.present:
		return "—"
	case v.kind() == argBool:
		if v.b {
			return "true"
		}
		return "false"
	case v.kind() == argEnum:
		return enumLabel(json.RawMessage(v.text))
	case v.kind() == argNull:
		return "null"
	}
	return v.text
}
