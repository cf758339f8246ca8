package tui

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/goldtrace/goldtrace/review"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/goldtrace/goldtrace/trace"
)

// pickValue is a value a reviewer can copy from the conversation: an id,
// date, number, code or quoted text, or an object from a tool result.
type pickValue struct {
	value  any    // string, json.Number or map[string]any
	text   string // how it is shown and inserted: text unquoted, else JSON
	key    string // the field it came from in JSON ("flight_number"), if any
	source string // where it appears ("user", "search_direct_flight result")
	named  bool   // a list of the objects the conversation's words name
	// into is set for a whole object offered at a field inside an object:
	// the path of that object, which the pick fills (shape is its schema).
	into  []int
	shape *argSchema
}

// maxPickValues bounds what one item offers.
const maxPickValues = 400

// tokenPattern finds copyable values in prose: dates, ids with digits,
// upper-case codes, emails, numbers, and quoted text. It is compiled on
// first use, not while the program starts.
var tokenPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(
		`\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?` +
			`|[\w.+-]+@[\w-]+\.[\w.-]+` +
			`|\b[A-Za-z]+[A-Za-z0-9]*(?:[_-][A-Za-z0-9]+)*\d[A-Za-z0-9]*(?:[_-][A-Za-z0-9]+)*\b` +
			`|\b[A-Z]{2,6}\b` +
			`|-?\$?\d[\d,]*(?:\.\d+)?` +
			`|"[^"\n]{1,80}"|'[^'\n]{2,80}'`)
})

// conversationValues lists what the item's context offers to copy, most
// recent first, each once.
func conversationValues(it trace.Item) []pickValue {
	var out []pickValue
	seen := map[string]bool{}
	add := func(pv pickValue) {
		if pv.text == "" || seen[pv.text] || len(out) >= maxPickValues {
			return
		}
		seen[pv.text] = true
		out = append(out, pv)
	}
	for i := len(it.Context) - 1; i >= 0; i-- {
		m := it.Context[i]
		source := m.Role
		if m.Role == trace.RoleTool {
			source = "tool result"
			if name := trace.ResultName(it.Context, i); name != "" {
				source = name + " result"
			}
		}
		for j := len(m.ToolCalls) - 1; j >= 0; j-- {
			var x any
			dec := json.NewDecoder(strings.NewReader(m.ToolCalls[j].RawArguments()))
			dec.UseNumber()
			if dec.Decode(&x) == nil {
				jsonValues(x, "", m.ToolCalls[j].Name+" call", add)
			}
		}
		if m.Role == trace.RoleSystem {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(m.Content))
		dec.UseNumber()
		var x any
		if t := strings.TrimSpace(m.Content); (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && dec.Decode(&x) == nil {
			jsonValues(x, "", source, add)
			continue
		}
		textValues(m.Content, source, add)
	}
	return out
}

// jsonValues offers every scalar of a JSON value, and its small objects.
func jsonValues(x any, key, source string, add func(pickValue)) {
	switch v := x.(type) {
	case map[string]any:
		if len(v) > 0 && len(v) <= 16 {
			add(pickValue{value: v, text: jsonLine(v), key: key, source: source})
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			jsonValues(v[k], k, source, add)
		}
	case []any:
		if objectList(v) {
			add(pickValue{value: v, text: jsonLine(v), key: key, source: source})
		}
		for _, el := range v {
			jsonValues(el, key, source, add)
		}
	case string:
		if v != "" && len(v) <= 120 && !strings.Contains(v, "\n") {
			add(pickValue{value: v, text: v, key: key, source: source})
		}
		if len(v) > 120 || strings.Contains(v, "\n") {
			textValues(v, source, add)
		}
	case json.Number:
		add(pickValue{value: v, text: v.String(), key: key, source: source})
	}
}

// maxPickList bounds the lists of objects offered whole.
const maxPickList = 16

// objectList reports whether a is a short list of objects, offered whole.
func objectList(a []any) bool {
	if len(a) == 0 || len(a) > maxPickList {
		return false
	}
	for _, el := range a {
		if _, ok := el.(map[string]any); !ok {
			return false
		}
	}
	return true
}

// textValues offers the tokens of prose, last first (nearest the decision).
func textValues(s, source string, add func(pickValue)) {
	found := tokenPattern().FindAllString(s, -1)
	for i := len(found) - 1; i >= 0; i-- {
		t := strings.TrimRight(found[i], ".,")
		if len(t) >= 2 && (t[0] == '"' || t[0] == '\'') && t[len(t)-1] == t[0] {
			t = t[1 : len(t)-1]
		}
		if t == "" {
			continue
		}
		if strings.ContainsAny(t, "$,") && !strings.ContainsAny(t, "\"' ") {
			// $1,234.50 is offered as the number 1234.50
			if num := strings.ReplaceAll(strings.TrimPrefix(t, "$"), ",", ""); isJSONNumber(num) {
				add(pickValue{value: json.Number(num), text: num, source: source})
			}
			continue
		}
		var value any = t
		if isJSONNumber(t) {
			value = json.Number(t)
		}
		add(pickValue{value: value, text: t, source: source})
	}
}

// valuePicker is the open list of values for the focused field.
type valuePicker struct {
	target  argStop
	objects bool        // offers objects: the focus is on a list of objects
	choices []pickValue // what fits the target, in the order offered
	filter  string
	matches []pickValue
	sel     int
}

// fits reports whether pv can go into the value s describes.
func fits(pv pickValue, s *argSchema) bool {
	switch s.kind {
	case argText, argRaw:
		// text takes a scalar (a number as written); JSON text anything
		switch pv.value.(type) {
		case map[string]any, []any:
			return s.kind == argRaw
		}
		return true
	case argNumber, argInteger:
		n, ok := pv.value.(json.Number)
		if !ok {
			return false
		}
		if s.kind == argInteger {
			_, err := n.Int64()
			return err == nil
		}
		return true
	case argEnum:
		return s.enumIndex(jsonLine(pv.value)) >= 0
	case argObject:
		// An object fits when it can be shaped into the schema's object
		// (projectObject): a flight from a search result fits a flights
		// element, the user's profile a passenger.
		m, ok := pv.value.(map[string]any)
		if !ok {
			return false
		}
		_, _, ok = projectObject(m, s)
		return ok
	}
	return false
}

// pickTarget is the schema a pick fills at the focus: the focused field,
// or for "+ add" a new element of the list.
func (f *argForm) pickTarget() (*argSchema, bool) {
	s, v := f.current()
	switch {
	case s.add:
		return v.s.items, true
	case s.extra || v == nil:
		return nil, false
	}
	return v.s, true
}

func (f *argForm) openPick() {
	target, ok := f.pickTarget()
	if !ok {
		return
	}
	f.jump = nil
	f.pick = &valuePicker{target: f.stops[f.at]}
	f.pick.objects = target.kind == argObject
	if f.pick.objects {
		f.pick.choices = objectChoices(f.values, f.prose, target)
	} else {
		for _, pv := range f.values {
			if fits(pv, target) {
				f.pick.choices = append(f.pick.choices, pv)
			}
		}
		f.pick.choices = append(f.pick.choices, f.enclosingChoices()...)
	}
	f.refilter()
}

// enclosingChoices are, at a field inside an object (a list element, a
// nested object), the whole objects that fit that object: picking one
// fills all its fields (a passenger from the user's profile).
func (f *argForm) enclosingChoices() []pickValue {
	s := f.stops[f.at]
	if s.add || s.extra || len(s.path) < 2 {
		return nil
	}
	path := slices.Clone(s.path[:len(s.path)-1])
	obj := f.root.at(path)
	if obj == nil || obj.kind() != argObject {
		return nil
	}
	var out []pickValue
	for _, pv := range objectChoices(f.values, f.prose, obj.s) {
		if _, isList := pv.value.([]any); isList {
			continue
		}
		pv.into, pv.shape = path, obj.s
		out = append(out, pv)
	}
	return out
}

// refilter keeps the choices whose text or field name holds the filter;
// once something is typed, single values come before whole lists (typing
// names one thing).
func (f *argForm) refilter() {
	p := f.pick
	p.matches = p.matches[:0]
	want := strings.ToLower(p.filter)
	var lists []pickValue
	for _, pv := range p.choices {
		if want != "" && !strings.Contains(strings.ToLower(pv.text), want) && !strings.Contains(strings.ToLower(pv.key), want) {
			continue
		}
		if _, isList := pv.value.([]any); isList && want != "" {
			lists = append(lists, pv)
			continue
		}
		p.matches = append(p.matches, pv)
	}
	p.matches = append(p.matches, lists...)
	p.sel = min(p.sel, max(len(p.matches)-1, 0))
}

func (f *argForm) updatePick(msg tea.Msg) (changed bool, leave int, cmd tea.Cmd) {
	k, isKey := msg.(tea.KeyMsg)
	if !isKey {
		return false, 0, nil
	}
	p := f.pick
	switch {
	case k.Type == tea.KeyEsc || key.Matches(k, f.keys.Pick):
		f.pick = nil
	case k.Type == tea.KeyEnter || k.Type == tea.KeyTab:
		if len(p.matches) == 0 {
			f.pick = nil
			return false, 0, nil
		}
		pv := p.matches[p.sel]
		f.pick = nil
		return f.apply(pv)
	case k.Type == tea.KeyUp:
		p.sel = max(p.sel-1, 0)
	case k.Type == tea.KeyDown:
		p.sel = min(p.sel+1, max(len(p.matches)-1, 0))
	case k.Type == tea.KeyBackspace:
		if p.filter != "" {
			p.filter = string([]rune(p.filter)[:len([]rune(p.filter))-1])
			p.sel = 0
			f.refilter()
		}
	case k.Type == tea.KeyRunes || k.Type == tea.KeySpace:
		p.filter += string(k.Runes)
		p.sel = 0
		f.refilter()
	}
	return false, 0, nil
}

// apply puts a picked value in the focused field and moves on. On "+ add"
// an object becomes a new element: the focus goes to its first empty field
// when it lacks one, else stays for the next element; a list adds all its
// elements and moves on.
func (f *argForm) apply(pv pickValue) (changed bool, leave int, cmd tea.Cmd) {
	s, v := f.current()
	if s.add {
		list, isList := pv.value.([]any)
		if !isList {
			list = []any{pv.value}
		}
		for _, el := range list {
			e := v.addElem()
			e.present = false
			e.set(declaredOnly(el, v.s.items))
		}
		f.touched(s.path, false)
		f.rebuild(&s)
		// A new element still lacking a value gets the focus.
		for i, st := range f.stops {
			if len(st.path) > len(s.path) && slices.Equal(st.path[:len(s.path)], s.path) &&
				st.path[len(s.path)] >= len(v.elems)-len(list) && f.empty(st) {
				return true, 0, f.focus(i)
			}
		}
		if isList {
			leave, cmd = f.nextNeeded()
			return true, leave, cmd
		}
		return true, 0, f.focus(f.at)
	}
	if pv.into != nil {
		// a whole object for the one holding the focus: the fields it
		// holds replaced, the focus to the first still empty, else on
		obj := f.root.at(pv.into)
		fresh := newArgNode(obj.s)
		fresh.set(declaredOnly(pv.value, obj.s))
		for i, fl := range fresh.fields {
			if fl.present { // what the pick does not hold stays as typed
				obj.fields[i] = fl
			}
		}
		obj.present = true
		f.touched(pv.into, false)
		f.rebuild(&s)
		for i, st := range f.stops {
			if len(st.path) > len(pv.into) && slices.Equal(st.path[:len(pv.into)], pv.into) && f.empty(st) {
				return true, 0, f.focus(i)
			}
		}
		leave, cmd = f.nextNeeded()
		return true, leave, cmd
	}
	switch v.kind() {
	case argObject:
		v.set(pv.value)
	case argText:
		v.text = pv.text
	case argRaw:
		v.text = jsonLine(pv.value)
	default:
		v.set(pv.value)
	}
	f.touched(s.path, false)
	f.rebuild(&s)
	leave, cmd = f.nextNeeded()
	return true, leave, cmd
}

// SetValues gives the form what the conversation offers to pick, and its
// words (which objects it names).
func (f *argForm) SetValues(values []pickValue, prose []proseMessage) {
	f.values, f.prose, f.suggested = slices.Clip(values), slices.Clip(prose), nil
}

// conversationText is everything the reviewer can read in the item's
// context, lower-cased: where a label's values should come from.
func conversationText(it trace.Item) *haystack {
	var b strings.Builder
	for _, m := range it.Context {
		b.WriteString(strings.ToLower(m.Content))
		b.WriteByte('\n')
		for _, c := range m.ToolCalls {
			b.WriteString(strings.ToLower(c.RawArguments()))
			b.WriteByte('\n')
		}
	}
	return &haystack{text: b.String()}
}

// haystack is an item's conversation as the "appears nowhere" warnings
// search it: its text, lower-cased, and the values of the numbers written
// in it, read once per item (the warnings run on every key typed into the
// arguments, and the conversation can be long).
type haystack struct {
	text    string
	numbers map[float64]bool // nil until first needed
}

// hasNumber reports whether the number n (as JSON writes it) is in the
// conversation: as written, or with thousands separators dropped or
// trailing zeros (1,234.50 for 1234.5).
func (h *haystack) hasNumber(n string) bool {
	if strings.Contains(h.text, n) {
		return true
	}
	if h.numbers == nil {
		h.numbers = map[float64]bool{}
		for _, tok := range tokenPattern().FindAllString(h.text, -1) {
			t := strings.ReplaceAll(strings.TrimPrefix(tok, "$"), ",", "")
			if a, err := json.Number(t).Float64(); err == nil {
				h.numbers[a] = true
			}
		}
	}
	b, err := json.Number(n).Float64()
	return err == nil && h.numbers[b]
}

// unseenValues warns about ids, codes and numbers in args that appear
// nowhere in the conversation (a typo, or a value from memory). Short
// values, true/false and whole numbers under 100 are too common to check.
func unseenValues(args json.RawMessage, hay *haystack, choices map[string]bool) []review.Problem {
	if hay == nil || hay.text == "" {
		return nil
	}
	dec := json.NewDecoder(strings.NewReader(string(args)))
	dec.UseNumber()
	var x any
	if dec.Decode(&x) != nil {
		return nil
	}
	var out []review.Problem
	var walk func(x any, path string)
	walk = func(x any, path string) {
		switch v := x.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				p := k
				if path != "" {
					p = path + "." + k
				}
				walk(v[k], p)
			}
		case []any:
			for i, el := range v {
				walk(el, path+"["+itoa(i)+"]")
			}
		case string:
			if len(v) >= 3 && !choices[v] && !strings.Contains(hay.text, strings.ToLower(v)) {
				out = append(out, review.Problem{Call: -1, Field: path, Message: fmt.Sprintf("%s %q appears nowhere in the conversation", path, v)})
			}
		case json.Number:
			if n, err := v.Float64(); err == nil && (n >= 100 || n <= -100 || n != float64(int64(n))) && !hay.hasNumber(v.String()) {
				out = append(out, review.Problem{Call: -1, Field: path, Message: fmt.Sprintf("%s %s appears nowhere in the conversation", path, v)})
			}
		}
	}
	walk(x, "")
	return out
}

// declaredOnly is x without the fields an object schema does not declare:
// a flight picked from a search result brings its number and date, not its
// prices.
func declaredOnly(x any, s *argSchema) any {
	m, ok := x.(map[string]any)
	if !ok || s.kind != argObject {
		return x
	}
	out := map[string]any{}
	for _, p := range s.props {
		if v, ok := m[p.name]; ok {
			out[p.name] = v
		}
	}
	return out
}

// choiceTexts are the text values a schema's enums allow anywhere in it:
// they come from the tool, not the conversation.
func choiceTexts(s *argSchema, out map[string]bool) map[string]bool {
	if out == nil {
		out = map[string]bool{}
	}
	if s == nil {
		return out
	}
	for _, e := range s.enum {
		var t string
		if json.Unmarshal(e, &t) == nil {
			out[t] = true
		}
	}
	for _, p := range s.props {
		choiceTexts(p.schema, out)
	}
	return choiceTexts(s.items, out)
}
