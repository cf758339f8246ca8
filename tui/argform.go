package tui

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
)

// ArgKeys drive the argument form.
type ArgKeys struct {
	Next       key.Binding // next field (tab, ↓)
	Skip       key.Binding // next field that needs a value (enter)
	Prev       key.Binding // previous field (↑; shift+tab is the page's)
	Add        key.Binding // on "+ add": a new element
	Remove     key.Binding // the element holding the focus
	MoveUp     key.Binding
	MoveDown   key.Binding
	ElemPrev   key.Binding // the same field of the list's previous element
	ElemNext   key.Binding
	Pick       key.Binding // a value from the conversation
	Toggle     key.Binding // yes/no
	ToggleForm key.Binding // the whole call as JSON text and back
}

func defaultArgKeys() ArgKeys {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return ArgKeys{
		Next:       b("tab/↓", "next field", "tab", "down"),
		Skip:       b("enter", "next empty field, else why", "enter"),
		Prev:       b("↑", "previous field", "up"),
		Add:        b("enter", "add element", "enter"),
		Remove:     b("ctrl+x", "remove element", "ctrl+x"),
		MoveUp:     b("shift+↑", "element earlier", "shift+up"),
		MoveDown:   b("shift+↓", "element later", "shift+down"),
		ElemPrev:   b("ctrl+↑", "previous element", "ctrl+up"),
		ElemNext:   b("ctrl+↓", "next element", "ctrl+down"),
		Pick:       b("ctrl+f", "pick from conversation", "ctrl+f"),
		Toggle:     b("space", "yes/no", " "),
		ToggleForm: b("ctrl+t", "form ⇄ JSON", "ctrl+t"),
	}
}

// argStop is one place the focus can be in the form: a field (path into
// the value), the "+ add" line of the array at path, or the undeclared
// fields of the object at path.
type argStop struct {
	path  []int
	add   bool
	extra bool
}

// argForm edits one call's arguments as a form built from the tool's JSON
// Schema: a field per property, lists of elements, nested objects, and
// JSON text for the parts the schema does not let it render.
type argForm struct {
	styles *Styles
	keys   *ArgKeys
	schema *argSchema
	root   *argNode
	stops  []argStop
	at     int
	in     textinput.Model // the focused text, number or JSON field
	filter string          // the focused choice's typed filter
	pick   *valuePicker    // open while picking a value
	jump   *fieldJump      // open while choosing a field to go to
	errs   []string        // the fields the validator finds wrong, for enter
	values []pickValue     // what the conversation offers, most recent first
	prose  []proseMessage  // the conversation's words, most recent first
	// suggested caches, per list element schema, what enter on its empty
	// list puts in (nil: nothing named)
	suggested map[*argSchema]*pickValue
	width     int
	height    int
	offset    int  // first line shown
	focused   bool // the form has the page's focus
}

func newArgForm(styles *Styles, keys *ArgKeys, schema *argSchema, args string) *argForm {
	in := textinput.New()
	in.Prompt = ""
	in.Cursor.SetMode(cursor.CursorStatic)
	in.TextStyle = styles.Role.Body
	in.PlaceholderStyle = styles.Muted
	f := &argForm{styles: styles, keys: keys, schema: schema, in: in}
	f.Load(args)
	return f
}

// Load replaces the value with args (JSON text) and focuses the first field.
func (f *argForm) Load(args string) {
	f.root = loadArgs(f.schema, args)
	f.root.present = true
	f.rebuild(nil)
	f.focus(0)
}

// JSON is the arguments the form holds.
func (f *argForm) JSON() string { return f.root.JSON() }

// Usable reports whether the form can render these arguments: false when
// the whole value is JSON text (no schema, or not an object).
func (f *argForm) Usable() bool { return f.root.kind() == argObject }

// Why is the reason the form cannot render the arguments, "" when it can.
func (f *argForm) Why() string { return f.root.reason() }

// rebuild lists the stops again after a change of shape and keeps the focus
// on keep (a stop's path) when it still exists.
func (f *argForm) rebuild(keep *argStop) {
	f.stops = f.stops[:0]
	f.walk(f.root, nil)
	if keep == nil {
		return
	}
	for i, s := range f.stops {
		if s.add == keep.add && s.extra == keep.extra && slices.Equal(s.path, keep.path) {
			f.at = i
			return
		}
	}
	f.at = min(f.at, max(len(f.stops)-1, 0))
}

func (f *argForm) walk(v *argNode, path []int) {
	switch v.kind() {
	case argObject:
		for i, fl := range v.fields {
			f.walk(fl, append(slices.Clone(path), i))
		}
		if v.extra != "" {
			f.stops = append(f.stops, argStop{path: path, extra: true})
		}
	case argArray:
		for j, e := range v.elems {
			f.walk(e, append(slices.Clone(path), j))
		}
		f.stops = append(f.stops, argStop{path: path, add: true})
	default:
		f.stops = append(f.stops, argStop{path: path})
	}
}

// current is the focused stop and its value (nil when there is no field).
func (f *argForm) current() (argStop, *argNode) {
	if f.at < 0 || f.at >= len(f.stops) {
		return argStop{}, nil
	}
	s := f.stops[f.at]
	return s, f.root.at(s.path)
}

// textual reports whether the stop is edited in the text input.
func textual(s argStop, v *argNode) bool {
	if s.extra {
		return true
	}
	if s.add || v == nil {
		return false
	}
	switch v.kind() {
	case argText, argNumber, argInteger, argRaw:
		return true
	}
	return false
}

// focus moves to stop i and loads its editor.
func (f *argForm) focus(i int) tea.Cmd {
	f.at = min(max(i, 0), max(len(f.stops)-1, 0))
	f.filter = ""
	f.focused = true
	f.in.Blur()
	s, v := f.current()
	if !textual(s, v) {
		return nil
	}
	f.in.Placeholder = ""
	if s.extra {
		f.in.SetValue(v.extra)
	} else {
		f.in.SetValue(v.text)
		if v.kind() == argRaw {
			f.in.Placeholder = "JSON"
		}
	}
	f.in.CursorEnd()
	return f.in.Focus()
}

// FocusWork focuses where the work is: the first field that needs a value
// and has none, else the first field.
func (f *argForm) FocusWork() tea.Cmd {
	for i, s := range f.stops {
		if f.empty(s) {
			return f.focus(i)
		}
	}
	return f.focus(0)
}

// FocusFirst and FocusLast enter the form from the field before or after.
func (f *argForm) FocusFirst() tea.Cmd { return f.focus(0) }
func (f *argForm) FocusLast() tea.Cmd  { return f.focus(len(f.stops) - 1) }

// Step moves the focus by delta; leave is ±1 when that steps out of the form.
func (f *argForm) Step(delta int) (leave int, cmd tea.Cmd) {
	to := f.at + delta
	if to < 0 || to >= len(f.stops) {
		return delta, nil
	}
	return 0, f.focus(to)
}

// Blur takes the focus off the form's editor.
func (f *argForm) Blur() {
	f.focused = false
	f.in.Blur()
	f.pick = nil
	f.jump = nil
}

// needed reports whether a stop is one enter stops at: a field that must be
// present (all the way down), or "+ add" of a required list still empty.
func (f *argForm) needed(s argStop) bool {
	if s.extra {
		return false
	}
	for d := 1; d <= len(s.path); d++ {
		if !f.required(s.path[:d]) && !f.root.at(s.path[:d]).present {
			return false
		}
	}
	if s.add {
		return len(f.root.at(s.path).elems) == 0
	}
	return true
}

// required reports whether the value at path must be present: a required
// property or an element of a list.
func (f *argForm) required(path []int) bool {
	if len(path) == 0 {
		return true
	}
	parent := f.root.at(path[:len(path)-1])
	if parent == nil || parent.kind() != argObject {
		return true
	}
	return parent.s.props[path[len(path)-1]].required
}

// touched marks the value at path and everything above it present, or
// absent when it was emptied and may be left out.
func (f *argForm) touched(path []int, empty bool) {
	v := f.root.at(path)
	v.present = !empty || f.required(path)
	if !v.present {
		return
	}
	for k := range path {
		f.root.at(path[:k]).present = true
	}
}

// Update handles a key (or a cursor message). changed reports an edit;
// leave is ±1 when the focus steps out of the form.
//
// It is long because it is one switch over the form's keys; each case
// delegates to a method.
func (f *argForm) Update(msg tea.Msg) (changed bool, leave int, cmd tea.Cmd) {
	if f.pick != nil {
		return f.updatePick(msg)
	}
	k, isKey := msg.(tea.KeyMsg)
	if f.jump != nil {
		if !isKey {
			return false, 0, nil
		}
		return f.updateJump(k)
	}
	if !isKey {
		if s, v := f.current(); textual(s, v) {
			f.in, cmd = f.in.Update(msg)
		}
		return false, 0, cmd
	}
	s, v := f.current()
	switch {
	case v == nil && !s.add:
		if key.Matches(k, f.keys.Next) {
			return false, 1, nil
		}
		return false, 0, nil
	case key.Matches(k, f.keys.Pick):
		f.openPick()
		return false, 0, nil
	case s.add && key.Matches(k, f.keys.Add) && f.suggestion(s) != nil:
		// enter on an empty list the conversation names objects for
		// takes them (ctrl+f offers the rest, typing starts one)
		return f.apply(*f.suggestion(s))
	case s.add && (key.Matches(k, f.keys.Add) || k.Type == tea.KeyRunes):
		// enter adds an element; so does typing, into its first field
		f.root.at(s.path).addElem()
		f.touched(s.path, false)
		f.rebuild(&s)
		// The new element's first field comes right before "+ add".
		first := f.at
		for first > 0 && len(f.stops[first-1].path) > len(s.path) && slices.Equal(f.stops[first-1].path[:len(s.path)], s.path) &&
			f.stops[first-1].path[len(s.path)] == len(f.root.at(s.path).elems)-1 {
			first--
		}
		cmd := f.focus(first)
		if k.Type == tea.KeyRunes {
			_, _, typed := f.Update(k)
			cmd = tea.Batch(cmd, typed)
		}
		return true, 0, cmd
	case key.Matches(k, f.keys.Next):
		leave, cmd := f.Step(1)
		return false, leave, cmd
	case key.Matches(k, f.keys.Skip):
		leave, cmd := f.nextNeeded()
		return false, leave, cmd
	case key.Matches(k, f.keys.Prev):
		leave, cmd := f.Step(-1)
		return false, leave, cmd
	case key.Matches(k, f.keys.Remove):
		return f.removeElem(), 0, f.focus(f.at)
	case key.Matches(k, f.keys.MoveUp):
		return f.moveElem(-1), 0, nil
	case key.Matches(k, f.keys.MoveDown):
		return f.moveElem(1), 0, nil
	case key.Matches(k, f.keys.ElemPrev):
		_, cmd := f.stepElem(-1)
		return false, 0, cmd
	case key.Matches(k, f.keys.ElemNext):
		_, cmd := f.stepElem(1)
		return false, 0, cmd
	case s.add:
		return false, 0, nil
	case textual(s, v):
		before := f.in.Value()
		f.in, cmd = f.in.Update(msg)
		if f.in.Value() == before {
			return false, 0, cmd
		}
		if s.extra {
			v.extra = f.in.Value()
		} else {
			v.text = f.in.Value()
			f.touched(s.path, v.text == "")
		}
		return true, 0, cmd
	case v.kind() == argBool:
		return f.editBool(s, v, k), 0, nil
	case v.kind() == argEnum:
		return f.editEnum(s, v, k), 0, nil
	case v.kind() == argNull:
		if key.Matches(k, f.keys.Toggle) {
			f.touched(s.path, v.present)
			return true, 0, nil
		}
	}
	return false, 0, nil
}

func (f *argForm) editBool(s argStop, v *argNode, k tea.KeyMsg) bool {
	switch {
	case key.Matches(k, f.keys.Toggle):
		v.b = !v.b || !v.present
	case k.String() == "y" || k.String() == "t":
		v.b = true
	case k.String() == "n" || k.String() == "f":
		v.b = false
	case k.Type == tea.KeyBackspace || k.Type == tea.KeyDelete:
		f.touched(s.path, true)
		return true
	default:
		return false
	}
	f.touched(s.path, false)
	return true
}

// editEnum: typed letters narrow the choices to the first that matches
// (by prefix, else anywhere); ←/→ step through them; backspace undoes.
func (f *argForm) editEnum(s argStop, v *argNode, k tea.KeyMsg) bool {
	enum := v.s.enum
	cur := v.s.enumIndex(v.text)
	switch {
	case k.Type == tea.KeyLeft || k.Type == tea.KeyRight:
		step := 1
		if k.Type == tea.KeyLeft {
			step = len(enum) - 1
		}
		if cur < 0 {
			cur = 0
		} else {
			cur = (cur + step) % len(enum)
		}
		f.filter = ""
	case k.Type == tea.KeyBackspace:
		if f.filter == "" {
			v.text = ""
			f.touched(s.path, true)
			return true
		}
		f.filter = f.filter[:len(f.filter)-1]
		if f.filter == "" {
			return false
		}
		cur = enumMatch(enum, f.filter)
	case k.Type == tea.KeyRunes || k.Type == tea.KeySpace:
		i := enumMatch(enum, f.filter+string(k.Runes))
		if i < 0 {
			return false
		}
		f.filter += string(k.Runes)
		cur = i
	default:
		return false
	}
	if cur < 0 {
		return false
	}
	changed := v.text != jsonLine(enum[cur])
	v.text = jsonLine(enum[cur])
	f.touched(s.path, false)
	return changed
}

// enumMatch is the first choice starting with filter, else the first
// containing it (case-insensitive), -1 when none.
func enumMatch(enum []json.RawMessage, filter string) int {
	filter = strings.ToLower(filter)
	for i, e := range enum {
		if strings.HasPrefix(strings.ToLower(enumLabel(e)), filter) {
			return i
		}
	}
	for i, e := range enum {
		if strings.Contains(strings.ToLower(enumLabel(e)), filter) {
			return i
		}
	}
	return -1
}

// element is the innermost list element holding the focus: the list's
// path and the element's index (ok false when the focus is in none).
func (f *argForm) element() (list []int, i int, ok bool) {
	s := f.stops[f.at]
	if s.add {
		return nil, 0, false
	}
	for d := len(s.path); d > 0; d-- {
		parent := f.root.at(s.path[:d-1])
		if parent != nil && parent.kind() == argArray {
			return slices.Clone(s.path[:d-1]), s.path[d-1], true
		}
	}
	return nil, 0, false
}

func (f *argForm) removeElem() bool {
	if len(f.stops) == 0 {
		return false
	}
	list, i, ok := f.element()
	if !ok {
		return false
	}
	f.root.at(list).removeElem(i)
	keep := argStop{path: list, add: true}
	if n := len(f.root.at(list).elems); i < n {
		// stay on the element that moved into its place
		f.rebuild(nil)
		for j, st := range f.stops {
			if len(st.path) > len(list) && slices.Equal(st.path[:len(list)], list) && st.path[len(list)] == i {
				f.at = j
				return true
			}
		}
	}
	f.rebuild(&keep)
	return true
}

func (f *argForm) moveElem(delta int) bool {
	if len(f.stops) == 0 {
		return false
	}
	list, i, ok := f.element()
	if !ok || !f.root.at(list).moveElem(i, delta) {
		return false
	}
	s := f.stops[f.at]
	keep := argStop{path: slices.Clone(s.path), extra: s.extra}
	keep.path[len(list)] = i + delta
	f.rebuild(&keep)
	return true
}

// SetSize sets the width and the number of lines the form may use.
func (f *argForm) SetSize(w, h int) {
	f.width, f.height = w, max(h, 1)
}
