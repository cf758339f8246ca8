package tui

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/trace"
)

// formField is the part of the label form with focus.
type formField int

const (
	fieldTool formField = iota
	fieldArgs
	fieldRationale
)

// callEditor is one call of the label: its tool and its arguments, edited
// in the schema's form or, one key away (or when the form cannot render
// them), as JSON text.
type callEditor struct {
	tool      string
	args      textarea.Model
	form      *argForm // nil until a tool is chosen
	useForm   bool
	validator *review.ArgsValidator
	// choices are the schema's enum texts (never "appears nowhere"), read
	// once per tool chosen.
	choices  map[string]bool
	problems []review.Problem
	warnings []review.Problem
	hint     string
}

// value is the call's arguments as JSON text, from whichever editor is on.
func (ce *callEditor) value() string {
	if ce.useForm && ce.form != nil {
		return ce.form.JSON()
	}
	return ce.args.Value()
}

// labelForm is the label being written: the calls (or no tool) and the
// rationale, with the focus on one field of one call.
type labelForm struct {
	styles    *Styles
	keys      *LabelKeys
	argKeys   *ArgKeys
	tools     []trace.Tool
	values    []pickValue // what the conversation offers to copy
	prose     []proseMessage
	haystack  *haystack // the conversation, for "appears nowhere"
	byName    map[string]trace.Tool
	noTool    bool
	calls     []*callEditor
	cur       int
	focus     formField
	picker    toolPicker
	rationale memoArea
	width     int
	argsH     int
	// spareArgs are the argument editors of the item before, reused: a
	// bubbles textarea allocates room for 10,000 lines (240 KB) when made
	// or emptied, so a screen that made one per item churned the heap.
	spareArgs []textarea.Model
}

func newLabelForm(styles *Styles, keys *LabelKeys) *labelForm {
	ak := defaultArgKeys()
	f := &labelForm{styles: styles, keys: keys, argKeys: &ak, picker: newToolPicker(styles)}
	rationale := f.newTextarea("why this is the right next step (required)")
	// What the store accepts, so a long paste stops where a submit would
	// be refused rather than failing at the submit.
	rationale.CharLimit = review.MaxRationale
	f.rationale = newMemoArea(rationale)
	return f
}

func (f *labelForm) newTextarea(placeholder string) textarea.Model {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = "│ "
	ta.CharLimit = 0
	ta.MaxHeight = 0
	ta.Placeholder = placeholder
	ta.Cursor.SetMode(cursor.CursorStatic)
	for _, st := range []*textarea.Style{&ta.FocusedStyle, &ta.BlurredStyle} {
		st.CursorLine = f.styles.Role.Body
		st.Text = f.styles.Role.Body
		st.Placeholder = f.styles.Muted
		st.EndOfBuffer = f.styles.Muted
		st.Prompt = f.styles.Muted
	}
	ta.FocusedStyle.Prompt = f.styles.Accent
	// The page owns ctrl+a/d/e/n; keep the editor's own keys off them.
	km := textarea.DefaultKeyMap
	km.LineNext = key.NewBinding(key.WithKeys("down"))
	km.LinePrevious = key.NewBinding(key.WithKeys("up"))
	km.LineStart = key.NewBinding(key.WithKeys("home"))
	km.LineEnd = key.NewBinding(key.WithKeys("end"))
	km.DeleteCharacterForward = key.NewBinding(key.WithKeys("delete"))
	km.TransposeCharacterBackward = key.NewBinding(key.WithKeys())
	km.CharacterForward = key.NewBinding(key.WithKeys("right"))
	km.CharacterBackward = key.NewBinding(key.WithKeys("left"))
	ta.KeyMap = km
	return ta
}

// LoadItem fills the form for a new item and offers the values of its
// conversation for picking.
func (f *labelForm) LoadItem(it trace.Item, d draftBody) {
	f.values = conversationValues(it)
	f.prose = conversationProse(it)
	f.haystack = conversationText(it)
	f.Load(it.Tools, d)
}

// Load fills the form for a new item from its tools and a draft (zero for
// a fresh item). Focus starts on the first call's tool.
func (f *labelForm) Load(tools []trace.Tool, d draftBody) {
	f.tools = tools
	f.byName = make(map[string]trace.Tool, len(tools))
	for _, t := range tools {
		f.byName[t.Name] = t
	}
	f.noTool = d.NoTool
	for _, ce := range f.calls {
		ce.args.Blur()
		f.spareArgs = append(f.spareArgs, ce.args)
	}
	f.calls = nil
	for _, c := range d.Calls {
		ce := f.newCall()
		f.setTool(ce, c.Tool, c.Args)
		f.calls = append(f.calls, ce)
	}
	if len(f.calls) == 0 {
		f.calls = []*callEditor{f.newCall()}
	}
	setText(f.rationale.edit(), d.Rationale)
	f.cur = 0
	f.resize()
	f.setFocus(0, fieldTool)
	if _, offered := f.byName[f.calls[0].tool]; !f.noTool && f.calls[0].tool != "" && !offered {
		return // a tool no longer offered: the work starts at the tool
	}
	if f.noTool || f.calls[0].tool != "" {
		// A draft comes back where the work is: the rationale if a tool is
		// chosen and its arguments are fine, else the arguments.
		if !f.noTool && len(f.calls[0].problems) > 0 {
			f.setFocus(0, fieldArgs)
		} else {
			f.setFocus(len(f.calls)-1, fieldRationale)
		}
	}
}

func (f *labelForm) newCall() *callEditor {
	if n := len(f.spareArgs); n > 0 {
		ta := f.spareArgs[n-1]
		f.spareArgs = f.spareArgs[:n-1]
		setText(&ta, "")
		return &callEditor{args: ta}
	}
	return &callEditor{args: f.newTextarea("{ }")}
}

// setText puts s in ta (cursor at its end). It never calls SetValue or
// Reset: those allocate a buffer for 10,000 lines (240 KB) each time, once
// per item on the label screen. ta is emptied in place instead.
func setText(ta *textarea.Model, s string) {
	clearText(ta)
	if s != "" {
		ta.InsertString(s)
	}
}

// clearText empties ta in place, keeping its line buffer: from the end of
// the text, ctrl+u deletes a line's text before the cursor or, at a line's
// start, joins it to the line above. ta's focus is as before.
func clearText(ta *textarea.Model) {
	if ta.Length() == 0 && ta.LineCount() == 1 {
		return
	}
	if !ta.Focused() {
		// The editor only takes keys when focused (Focus returns no
		// command for a static cursor).
		ta.Focus()
		defer ta.Blur()
	}
	*ta, _ = ta.Update(tea.KeyMsg{Type: tea.KeyCtrlEnd}) // the end of the input
	ctrlU := tea.KeyMsg{Type: tea.KeyCtrlU}
	for n := 2*ta.LineCount() + 1; n > 0 && (ta.Length() > 0 || ta.LineCount() > 1); n-- {
		*ta, _ = ta.Update(ctrlU)
	}
	if ta.Length() > 0 || ta.LineCount() > 1 {
		ta.Reset() // a key map without ctrl+end or ctrl+u; never so here
	}
}

// setTool chooses a tool for a call; args "" starts empty: the form when
// the schema allows one, else the JSON skeleton.
func (f *labelForm) setTool(ce *callEditor, name, args string) {
	ce.tool = name
	ce.validator, ce.hint, ce.form, ce.useForm, ce.choices = nil, "", nil, false, nil
	if name == "" {
		setText(&ce.args, "")
		ce.problems, ce.warnings = nil, nil
		return
	}
	tool := f.byName[name]
	ce.validator = review.NewArgsValidator(tool)
	ce.form = newArgForm(f.styles, f.argKeys, parseArgSchema(tool.Parameters), args)
	ce.form.SetValues(f.values, f.prose)
	ce.useForm = ce.form.Usable()
	if ce.useForm {
		ce.args.SetValue(ce.form.JSON())
	} else {
		skeleton, hint := argsSkeleton(tool)
		ce.hint = "JSON: " + ce.form.Why()
		if hint != "" {
			ce.hint += " · " + hint
		}
		if args == "" {
			args = skeleton
		}
		ce.args.SetValue(args)
	}
	f.resize()
	f.validate(ce)
}

func (f *labelForm) validate(ce *callEditor) {
	if ce.validator == nil {
		ce.problems, ce.warnings = nil, nil
		return
	}
	v := json.RawMessage(ce.value())
	ce.problems = ce.validator.Validate(v)
	if _, offered := f.byName[ce.tool]; !offered {
		// A draft's tool the item no longer offers (put back against a
		// newer catalogue): said before submit refuses it.
		ce.problems = append([]review.Problem{{Message: fmt.Sprintf("%q is not one of the tools offered here: choose another (shift+tab to the tool)", ce.tool)}}, ce.problems...)
	}
	if ce.choices == nil && ce.form != nil {
		ce.choices = choiceTexts(ce.form.schema, nil)
	}
	ce.warnings = append(ce.validator.Warnings(v), unseenValues(v, f.haystack, ce.choices)...)
	if ce.form != nil {
		ce.form.errs = ce.form.errs[:0]
		for _, p := range ce.problems {
			ce.form.errs = append(ce.form.errs, p.Field)
		}
	}
}

// toggleArgs switches a call between the form and JSON text; the JSON is
// read back into the form only when the form can show all of it.
func (f *labelForm) toggleArgs(ce *callEditor) (msg string, cmd tea.Cmd) {
	if ce.form == nil {
		return "", nil
	}
	if ce.useForm {
		ce.args.SetValue(ce.form.JSON())
		ce.useForm = false
		f.resize()
		return "", ce.args.Focus()
	}
	trial := newArgForm(f.styles, f.argKeys, ce.form.schema, ce.args.Value())
	if !trial.Usable() {
		return "kept as JSON: " + trial.Why(), nil
	}
	trial.SetValues(f.values, f.prose)
	ce.args.Blur()
	ce.form, ce.useForm, ce.hint = trial, true, ""
	f.resize()
	return "", ce.form.FocusFirst()
}

// Draft is the form as a draft body.
func (f *labelForm) Draft(sawObserved bool) draftBody {
	d := draftBody{NoTool: f.noTool, Rationale: f.rationale.Value(), SawObserved: sawObserved, Calls: []draftCall{}}
	if !f.noTool {
		for _, c := range f.calls {
			d.Calls = append(d.Calls, draftCall{Tool: c.tool, Args: c.value()})
		}
	}
	return d
}

// Label is the form as a label (not yet validated).
func (f *labelForm) Label() review.Label {
	l := review.Label{Decision: review.DecisionNoCall, Rationale: strings.TrimSpace(f.rationale.Value())}
	if f.noTool {
		return l
	}
	l.Decision = review.DecisionCall
	for _, c := range f.calls {
		args := json.RawMessage(c.value())
		if canon, err := trace.Canonical(args); err == nil {
			args = canon
		}
		l.Calls = append(l.Calls, review.LabelCall{Tool: c.tool, Args: args})
	}
	return l
}

// Problems are the reasons the form cannot be submitted, with where to go
// to fix the first one.
func (f *labelForm) Problems(rationaleRequired bool) (msgs []string, call int, field formField) {
	call, field = -1, fieldTool
	if !f.noTool {
		for i, c := range f.calls {
			prefix := ""
			if len(f.calls) > 1 {
				prefix = "call " + itoa(i+1) + ": "
			}
			switch {
			case c.tool == "":
				msgs = append(msgs, prefix+"choose a tool, or (no tool)")
				if call < 0 {
					call, field = i, fieldTool
				}
			case len(c.problems) > 0:
				for _, p := range c.problems {
					msgs = append(msgs, prefix+p.Message)
				}
				if call < 0 {
					call, field = i, fieldArgs
				}
			}
		}
	}
	if rationaleRequired && strings.TrimSpace(f.rationale.Value()) == "" {
		msgs = append(msgs, "write a rationale: why is this the right next step?")
		if call < 0 {
			call, field = len(f.calls)-1, fieldRationale
		}
	}
	return msgs, call, field
}

// stops lists the focus stops in tab order.
func (f *labelForm) stops() [][2]int {
	var out [][2]int
	for i, c := range f.calls {
		out = append(out, [2]int{i, int(fieldTool)})
		if f.noTool {
			break
		}
		if c.tool != "" {
			out = append(out, [2]int{i, int(fieldArgs)})
		}
	}
	return append(out, [2]int{len(f.calls) - 1, int(fieldRationale)})
}

// Move shifts the focus by delta stops (tab, shift+tab), wrapping around;
// in the argument form a step goes field by field first.
func (f *labelForm) Move(delta int) tea.Cmd {
	if f.focus == fieldArgs && (delta == 1 || delta == -1) {
		if ce := f.calls[f.cur]; ce.useForm && ce.form != nil && ce.form.pick == nil {
			if leave, cmd := ce.form.Step(delta); leave == 0 {
				return cmd
			}
		}
	}
	return f.moveOut(delta)
}

// moveOut shifts the focus by delta of the form's own stops (tool, args,
// rationale), whatever field of the argument form has focus.
func (f *labelForm) moveOut(delta int) tea.Cmd {
	stops := f.stops()
	at := 0
	for i, s := range stops {
		if s[0] == f.cur && formField(s[1]) == f.focus || formField(s[1]) == fieldRationale && f.focus == fieldRationale {
			at = i
			break
		}
	}
	next := stops[(at+delta+len(stops))%len(stops)]
	cmd := f.setFocus(next[0], formField(next[1]))
	if ce := f.calls[f.cur]; delta < 0 && f.focus == fieldArgs && ce.useForm {
		return ce.form.FocusLast() // coming back from below: the last field
	}
	return cmd
}

func (f *labelForm) setFocus(call int, field formField) tea.Cmd {
	call = min(max(call, 0), len(f.calls)-1)
	for _, c := range f.calls {
		c.args.Blur()
		if c.form != nil {
			c.form.Blur()
		}
	}
	f.rationale.Blur()
	f.picker.Blur()
	f.cur, f.focus = call, field
	switch field {
	case fieldTool:
		ce := f.calls[call]
		current := ce.tool
		if f.noTool {
			current = noToolChoice
		}
		f.picker.SetTools(f.tools, len(f.calls) == 1)
		f.picker.Reset(current)
		return f.picker.Focus()
	case fieldArgs:
		ce := f.calls[call]
		if ce.useForm {
			return ce.form.FocusWork()
		}
		// Arrive where the work is: the first value still empty.
		if r, c, ok := nextEmptyValue(ce.args.Value(), 0, 0); ok {
			placeCursor(&ce.args, r, c)
		}
		return ce.args.Focus()
	}
	return f.rationale.Focus()
}

// choose applies the picker's highlighted tool to the focused call and moves
// on: to the first empty argument, or to the rationale when there is none.
func (f *labelForm) choose() (changed bool, cmd tea.Cmd) {
	name := f.picker.Selected()
	if name == "" {
		return false, nil
	}
	ce := f.calls[f.cur]
	if name == noToolChoice {
		changed = !f.noTool
		f.noTool = true
		f.calls = []*callEditor{ce}
		return changed, f.setFocus(0, fieldRationale)
	}
	var kept []string
	if f.noTool || ce.tool != name {
		args := ""
		if !f.noTool && ce.tool != "" {
			args, kept = f.carryArgs(ce, name)
		}
		f.noTool = false
		f.setTool(ce, name, args)
		changed = true
	}
	f.resize()
	if len(kept) > 0 {
		defer func() { cmd = tea.Batch(cmd, ReportStatus("kept "+strings.Join(kept, ", ")+" from the tool before")) }()
	}
	if ce.useForm && len(ce.form.stops) > 0 {
		return changed, f.setFocus(f.cur, fieldArgs)
	}
	if _, _, ok := nextEmptyValue(ce.args.Value(), 0, 0); !ce.useForm && (ok || len(ce.problems) > 0 || ce.hint != "") {
		return changed, f.setFocus(f.cur, fieldArgs)
	}
	return changed, f.Move(2)
}

// Typing reports whether the focused field takes typed text.
func (f *labelForm) Typing() bool {
	if f.focus != fieldArgs || f.noTool {
		return true
	}
	ce := f.calls[f.cur]
	if !ce.useForm {
		return ce.tool != "" // the JSON editor; with no tool there is nothing to type
	}
	if ce.form.pick != nil || ce.form.jump != nil {
		return true
	}
	// Typing on "+ add" starts an element, so only yes/no and null fields
	// leave q and ? to the screen.
	st, v := ce.form.current()
	return st.add || v != nil && (textual(st, v) || v.kind() == argEnum)
}

// argHelp lists the argument form's keys while it has the focus.
func (f *labelForm) argHelp() []key.Binding {
	if f.focus != fieldArgs || f.noTool || !f.calls[f.cur].useForm {
		if f.focus == fieldArgs && !f.noTool && f.calls[f.cur].form != nil {
			return []key.Binding{f.argKeys.ToggleForm}
		}
		return nil
	}
	a := f.argKeys
	return []key.Binding{a.Next, a.Skip, a.Prev, a.Pick, a.Remove, a.MoveUp, a.MoveDown, a.ElemPrev, a.ElemNext, a.Toggle, a.ToggleForm}
}

// CopyCalls replaces the label's calls with calls (the production model's),
// to edit only what is wrong; no calls means no tool. The focus goes to the
// first call whose arguments have a problem, else to the rationale.
func (f *labelForm) CopyCalls(calls []trace.Call) tea.Cmd {
	f.calls = nil
	f.noTool = len(calls) == 0
	for _, c := range calls {
		ce := f.newCall()
		f.setTool(ce, c.Name, c.RawArguments())
		f.calls = append(f.calls, ce)
	}
	if len(f.calls) == 0 {
		f.calls = []*callEditor{f.newCall()}
	}
	f.resize()
	for i, ce := range f.calls {
		if len(ce.problems) > 0 {
			return f.setFocus(i, fieldArgs)
		}
	}
	return f.setFocus(len(f.calls)-1, fieldRationale)
}

// AddCall appends a call after the focused one and focuses its tool.
func (f *labelForm) AddCall() tea.Cmd {
	f.noTool = false
	ce := f.newCall()
	at := f.cur + 1
	f.calls = append(f.calls[:at], append([]*callEditor{ce}, f.calls[at:]...)...)
	f.resize()
	return f.setFocus(at, fieldTool)
}

// RemoveCall drops the focused call (never the last one).
func (f *labelForm) RemoveCall() (bool, tea.Cmd) {
	if len(f.calls) < 2 {
		return false, nil
	}
	f.calls = append(f.calls[:f.cur], f.calls[f.cur+1:]...)
	return true, f.setFocus(min(f.cur, len(f.calls)-1), fieldTool)
}

// MoveCall swaps the focused call with its neighbour (delta -1 or +1).
func (f *labelForm) MoveCall(delta int) bool {
	to := f.cur + delta
	if to < 0 || to >= len(f.calls) || f.focus == fieldRationale {
		return false
	}
	f.calls[f.cur], f.calls[to] = f.calls[to], f.calls[f.cur]
	f.cur = to
	return true
}

// Update sends a key or message to the focused field; changed reports an
// edit worth saving.
func (f *labelForm) Update(msg tea.Msg) (changed bool, cmd tea.Cmd) {
	k, isKey := msg.(tea.KeyMsg)
	switch f.focus {
	case fieldTool:
		if isKey && key.Matches(k, f.keys.Choose) {
			return f.choose()
		}
		return false, f.picker.Update(msg)
	case fieldArgs:
		ce := f.calls[f.cur]
		if isKey && key.Matches(k, f.argKeys.ToggleForm) {
			msg, cmd := f.toggleArgs(ce)
			if msg != "" {
				cmd = ReportStatus(msg)
			}
			return false, cmd
		}
		if ce.useForm {
			changed, leave, cmd := ce.form.Update(msg)
			if changed {
				f.validate(ce)
			}
			if leave != 0 {
				return changed, tea.Batch(cmd, f.moveOut(leave))
			}
			return changed, cmd
		}
		if isKey && key.Matches(k, f.keys.NextField) {
			li := ce.args.LineInfo()
			if r, c, ok := nextEmptyValue(ce.args.Value(), ce.args.Line(), li.StartColumn+li.ColumnOffset); ok {
				placeCursor(&ce.args, r, c)
				return false, nil
			}
			return false, f.Move(1)
		}
		before := ce.args.Value()
		ce.args, cmd = ce.args.Update(msg)
		if ce.args.Value() != before {
			f.validate(ce)
			return true, cmd
		}
		return false, cmd
	default:
		if isKey && key.Matches(k, f.keys.NextField) {
			return false, f.Move(1)
		}
		before := f.rationale.Value()
		cmd = f.rationale.Update(msg)
		return f.rationale.Value() != before, cmd
	}
}

// placeCursor moves a textarea's cursor to (row, col) of its value.
func placeCursor(ta *textarea.Model, row, col int) {
	for i := 0; i < 10000 && (ta.Line() > 0 || ta.LineInfo().RowOffset > 0); i++ {
		ta.CursorUp()
	}
	for i := 0; i < 10000 && ta.Line() < row; i++ {
		ta.CursorDown()
	}
	ta.SetCursor(col)
}

// SetWidth sets the form width; heights come from SetHeights.
func (f *labelForm) SetWidth(w int) {
	f.width = w
	f.resize()
}

// SetArgsHeight sets how many lines the args editor (and tool list) get.
func (f *labelForm) SetArgsHeight(h int) {
	f.argsH = max(h, 1)
	f.resize()
}

func (f *labelForm) resize() {
	w := max(f.width-labelColumn, 10)
	for _, c := range f.calls {
		c.args.SetWidth(w)
		c.args.SetHeight(f.argsH)
		if c.form != nil {
			c.form.SetSize(w, f.argsH)
		}
	}
	f.rationale.SetWidth(w)
}

func itoa(n int) string { return strconv.Itoa(n) }
