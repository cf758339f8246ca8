package tui

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"

	"github.com/goldtrace/goldtrace/trace"
)

// Whole objects and lists for the value picker: a value from a tool result
// rarely has exactly the fields of an argument (a user profile holds the
// passenger's name under "name", a payment method calls its id "id" where
// the booking wants "payment_id"), so it is projected onto the argument's
// schema, field by field.

// projectObject builds the object schema s wants out of m: each declared
// field from m's field of that name, else from a nested object's ("name" →
// first_name), else an *_id field from m's "id"; numbers only when m has
// no field s does not declare. complete reports every
// required field found; ok that the object is worth offering: complete, or
// holding the first required field (what names it: a flight number, a
// payment id), and no field of the wrong type.
func projectObject(m map[string]any, s *argSchema) (out map[string]any, complete, ok bool) {
	out = map[string]any{}
	complete, named, some := true, false, false
	firstRequired := true
	// A number is carried over only from an object of exactly the
	// argument's shape: a gift card's "amount" is its balance, not what
	// the booking pays with it.
	sameShape := true
	for k := range m {
		sameShape = sameShape && s.prop(k) != nil
	}
	for _, p := range s.props {
		v, has := lookupField(m, p.name)
		if (p.schema.kind == argNumber || p.schema.kind == argInteger) && !sameShape {
			has = false
		}
		if has {
			if pv, fit := projectValue(v, p.schema); fit {
				out[p.name] = pv
				some = true
				has = true
			} else {
				has = false
			}
		}
		if p.required {
			if firstRequired && has {
				named = true
			}
			firstRequired = false
			complete = complete && has
		}
	}
	if firstRequired {
		// nothing is required: any declared field makes it worth offering
		named = some
	}
	return out, complete, some && (complete || named)
}

// lookupField finds field name in m, in a nested object of m, or (for an
// id) as m's "id".
func lookupField(m map[string]any, name string) (any, bool) {
	if v, ok := m[name]; ok {
		return v, true
	}
	for _, k := range sortedKeys(m) {
		if inner, ok := m[k].(map[string]any); ok {
			if v, ok := inner[name]; ok {
				return v, true
			}
		}
	}
	if strings.HasSuffix(name, "_id") {
		if v, ok := m["id"]; ok {
			return v, true
		}
	}
	return nil, false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// projectValue is x shaped for s when it fits: strictly typed scalars,
// objects projected (complete ones only, when nested), lists of fitting
// elements.
func projectValue(x any, s *argSchema) (any, bool) {
	switch s.kind {
	case argRaw:
		return x, true
	case argText:
		_, ok := x.(string)
		return x, ok
	case argNumber:
		_, ok := x.(json.Number)
		return x, ok
	case argInteger:
		n, ok := x.(json.Number)
		if ok {
			_, err := n.Int64()
			ok = err == nil
		}
		return x, ok
	case argBool:
		_, ok := x.(bool)
		return x, ok
	case argNull:
		return x, x == nil
	case argEnum:
		return x, s.enumIndex(jsonLine(x)) >= 0
	case argObject:
		m, ok := x.(map[string]any)
		if !ok {
			return nil, false
		}
		out, complete, _ := projectObject(m, s)
		return out, complete
	case argArray:
		a, ok := x.([]any)
		if !ok {
			return nil, false
		}
		out := make([]any, 0, len(a))
		for _, el := range a {
			pv, fit := projectValue(el, s.items)
			if !fit {
				return nil, false
			}
			out = append(out, pv)
		}
		return out, true
	}
	return nil, false
}

// proseMessage is a message a reviewer reads as words (the user's, the
// assistant's): where the conversation confirms which objects it means.
type proseMessage struct{ text string }

// conversationProse is the item's user and assistant words, most recent
// first, lower-cased.
func conversationProse(it trace.Item) []proseMessage {
	var out []proseMessage
	for i := len(it.Context) - 1; i >= 0; i-- {
		m := it.Context[i]
		if (m.Role == trace.RoleUser || m.Role == trace.RoleAssistant) && strings.TrimSpace(m.Content) != "" {
			out = append(out, proseMessage{text: strings.ToLower(m.Content)})
		}
	}
	return out
}

// objectChoices are what the picker offers for a new element of a list
// whose elements are item: lists first (the objects the latest words of
// the conversation name, in the order named; lists found whole in tool
// results), then single objects, complete before partial, each once.
func objectChoices(values []pickValue, prose []proseMessage, item *argSchema) []pickValue {
	var complete, partial, lists []pickValue
	seen := map[string]bool{}
	for _, pv := range values {
		switch x := pv.value.(type) {
		case map[string]any:
			out, full, ok := projectObject(x, item)
			text := jsonLine(out)
			if !ok || seen[text] {
				continue
			}
			seen[text] = true
			c := pickValue{value: out, text: text, key: pv.key, source: pv.source}
			if full {
				complete = append(complete, c)
			} else {
				partial = append(partial, c)
			}
		case []any:
			if len(x) == 0 {
				continue
			}
			out, ok := projectValue(x, &argSchema{kind: argArray, items: item})
			text := jsonLine(out)
			if !ok || seen[text] {
				continue
			}
			seen[text] = true
			lists = append(lists, pickValue{value: out, text: text, key: pv.key, source: pv.source})
		}
	}
	// A part of an object offered whole ({first_name, last_name} of a
	// profile that also has the dob) is offered no more.
	partial = slices.DeleteFunc(partial, func(p pickValue) bool {
		return slices.ContainsFunc(complete, func(c pickValue) bool { return holds(c.value, p.value) })
	})
	if named := namedList(slices.Concat(complete, partial), prose); named != nil {
		// first; a list found whole in a result that is the same goes
		// after it no more
		lists = slices.DeleteFunc(lists, func(l pickValue) bool { return l.text == named.text })
		lists = append([]pickValue{*named}, lists...)
	}
	return slices.Concat(lists, complete, partial)
}

// namedList is the list of objects that the latest message naming
// any of them names, in the order it names them ("HAT069 … and HAT258"),
// nil when no message names one. An object is named by one of its text
// values (three characters or more) that no other object holds.
func namedList(objects []pickValue, prose []proseMessage) *pickValue {
	if len(objects) == 0 {
		return nil
	}
	count := map[string]int{}
	marks := make([][]string, len(objects))
	for i, o := range objects {
		for _, v := range o.value.(map[string]any) {
			if s, ok := v.(string); ok && len(s) >= 3 {
				s = strings.ToLower(s)
				if !slices.Contains(marks[i], s) {
					marks[i] = append(marks[i], s)
					count[s]++
				}
			}
		}
	}
	for n, m := range prose {
		if n == maxNamingMessages {
			break
		}
		type hit struct {
			at  int
			obj int
		}
		var hits []hit
		for i := range objects {
			at := -1
			for _, mk := range marks[i] {
				if count[mk] != 1 {
					continue
				}
				if j := indexWord(m.text, mk); j >= 0 && (at < 0 || j < at) {
					at = j
				}
			}
			if at >= 0 {
				hits = append(hits, hit{at, i})
			}
		}
		if len(hits) == 0 {
			continue
		}
		sort.SliceStable(hits, func(a, b int) bool { return hits[a].at < hits[b].at })
		list := make([]any, len(hits))
		var sources []string
		for k, h := range hits {
			list[k] = objects[h.obj].value
			if src := objects[h.obj].source; !slices.Contains(sources, src) {
				sources = append(sources, src)
			}
		}
		return &pickValue{value: list, text: jsonLine(list), source: "named in the conversation · " + strings.Join(sources, ", "), named: true}
	}
	return nil
}

// maxNamingMessages bounds how far back namedList looks for the words
// that name objects: the confirmation sits just before the decision.
const maxNamingMessages = 8

// indexWord is the first place word occurs in text as a whole word (not
// "ava" in "available"), -1 when it does not.
func indexWord(text, word string) int {
	for from := 0; from < len(text); {
		j := strings.Index(text[from:], word)
		if j < 0 {
			return -1
		}
		j += from
		end := j + len(word)
		if (j == 0 || !wordByte(text[j-1])) && (end == len(text) || !wordByte(text[end])) {
			return j
		}
		from = j + 1
	}
	return -1
}

func wordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// suggestion is what enter puts in the empty list at stop s: the objects
// the conversation names for it (namedList), nil when it names none.
func (f *argForm) suggestion(s argStop) *pickValue {
	v := f.root.at(s.path)
	if !s.add || v == nil || len(v.elems) > 0 || v.s.items.kind != argObject {
		return nil
	}
	// Drawn on every key while the focus is there: worked out once per
	// list schema and item.
	if sug, ok := f.suggested[v.s.items]; ok {
		return sug
	}
	var sug *pickValue
	if choices := objectChoices(f.values, f.prose, v.s.items); len(choices) > 0 && choices[0].named {
		sug = &choices[0]
	}
	if f.suggested == nil {
		f.suggested = map[*argSchema]*pickValue{}
	}
	f.suggested[v.s.items] = sug
	return sug
}

// prop is the declared property called name, nil when there is none.
func (s *argSchema) prop(name string) *argProp {
	for i := range s.props {
		if s.props[i].name == name {
			return &s.props[i]
		}
	}
	return nil
}

// holds reports whether object a has every field of object b, equal.
func holds(a, b any) bool {
	am, ok1 := a.(map[string]any)
	bm, ok2 := b.(map[string]any)
	if !ok1 || !ok2 {
		return false
	}
	for k, v := range bm {
		if w, ok := am[k]; !ok || jsonLine(w) != jsonLine(v) {
			return false
		}
	}
	return true
}
