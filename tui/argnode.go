package tui

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// argNode is one part of a call's arguments as the form edits it, shaped
// by its schema. A value that does not fit its schema (text where a number
// belongs, an object where a list belongs) is kept verbatim as JSON text
// (raw, with why), so loading and saving never loses what was written.
type argNode struct {
	s       *argSchema
	present bool   // part of the arguments (an optional field may be left out)
	text    string // text, number, integer: what is typed; enum: the JSON of the choice; raw: JSON text
	b       bool
	fields  []*argNode // object, one per s.props
	extra   string     // object: undeclared fields as a JSON object, "" when none
	elems   []*argNode // array
	raw     bool       // edited as JSON text although the schema has a shape
	why     string     // why raw
}

func newArgNode(s *argSchema) *argNode {
	v := &argNode{s: s}
	if s.kind == argObject {
		for _, p := range s.props {
			v.fields = append(v.fields, newArgNode(p.schema))
		}
	}
	return v
}

// kind is how the value is edited: its schema's kind unless it is raw.
func (v *argNode) kind() argKind {
	if v.raw {
		return argRaw
	}
	return v.s.kind
}

// reason is why the value is JSON text, "" when it is not.
func (v *argNode) reason() string {
	if v.raw {
		return v.why
	}
	if v.s.kind == argRaw {
		return v.s.why
	}
	return ""
}

// loadArgs builds the form's value from arguments JSON; text that is not a
// JSON object makes the whole value raw, verbatim.
func loadArgs(s *argSchema, args string) *argNode {
	v := newArgNode(s)
	if strings.TrimSpace(args) == "" {
		return v
	}
	dec := json.NewDecoder(strings.NewReader(args))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil || dec.More() {
		v.raw, v.why, v.present, v.text = true, "the arguments are not valid JSON", true, args
		return v
	}
	if _, ok := x.(map[string]any); !ok && s.kind != argRaw {
		v.raw, v.why, v.present, v.text = true, "the arguments are not an object", true, args
		return v
	}
	v.set(x)
	return v
}

// set fills v from a decoded JSON value (numbers as json.Number).
func (v *argNode) set(x any) {
	v.present = true
	misfit := func() {
		v.raw, v.why = true, "its value does not fit the form ("+v.s.typeName()+")"
		v.text = jsonLine(x)
	}
	switch v.s.kind {
	case argRaw:
		v.text = jsonLine(x)
	case argText:
		s, ok := x.(string)
		if !ok {
			misfit()
			return
		}
		v.text = s
	case argNumber, argInteger:
		n, ok := x.(json.Number)
		if !ok {
			misfit()
			return
		}
		v.text = n.String()
	case argBool:
		b, ok := x.(bool)
		if !ok {
			misfit()
			return
		}
		v.b = b
	case argNull:
		if x != nil {
			misfit()
		}
	case argEnum:
		j := jsonLine(x)
		if v.s.enumIndex(j) < 0 {
			misfit()
			v.why = "its value is not one of the choices"
			return
		}
		v.text = j
	case argObject:
		m, ok := x.(map[string]any)
		if !ok {
			misfit()
			return
		}
		extra := map[string]any{}
		for k, val := range m {
			extra[k] = val
		}
		for i, p := range v.s.props {
			if val, ok := m[p.name]; ok {
				v.fields[i].set(val)
				delete(extra, p.name)
			}
		}
		if len(extra) > 0 {
			v.extra = jsonLine(extra)
		}
	case argArray:
		a, ok := x.([]any)
		if !ok {
			misfit()
			return
		}
		for _, el := range a {
			e := newArgNode(v.s.items)
			e.set(el)
			v.elems = append(v.elems, e)
		}
	}
}

// enumIndex is the position of the choice whose JSON is j, -1 if none.
func (s *argSchema) enumIndex(j string) int {
	for i, e := range s.enum {
		if jsonLine(e) == j {
			return i
		}
	}
	return -1
}

// enumLabel is how a choice is shown: text without quotes.
func enumLabel(e json.RawMessage) string {
	var s string
	if json.Unmarshal(e, &s) == nil {
		return s
	}
	return jsonLine(e)
}

// jsonLine is x (a decoded value or JSON bytes) as one line of JSON.
func jsonLine(x any) string {
	if raw, ok := x.(json.RawMessage); ok {
		var b bytes.Buffer
		if json.Compact(&b, raw) == nil {
			return b.String()
		}
		return string(raw)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(x) != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// JSON writes the arguments the form holds, indented; a raw part that is
// not valid JSON is written verbatim so nothing typed is lost (the
// validator then reports it).
func (v *argNode) JSON() string {
	var b strings.Builder
	v.write(&b, "")
	return b.String()
}

func (v *argNode) write(b *strings.Builder, indent string) {
	switch v.kind() {
	case argRaw:
		t := strings.TrimSpace(v.text)
		if v.raw && v.s.kind == argEnum && !json.Valid([]byte(t)) && v.s.enumIndex(jsonLine(t)) >= 0 {
			// A choice typed without quotes in a choice field that held a
			// value no longer among them (a dropped enum value).
			t = jsonLine(t)
		}
		b.WriteString(t)
	case argText:
		b.WriteString(jsonLine(v.text))
	case argNumber, argInteger:
		if isJSONNumber(v.text) {
			b.WriteString(v.text)
		} else {
			b.WriteString(jsonLine(v.text)) // kept as text: the validator says it must be a number
		}
	case argBool:
		if v.b {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case argNull:
		b.WriteString("null")
	case argEnum:
		b.WriteString(v.text)
	case argObject:
		var members []string
		inner := indent + "  "
		for i, f := range v.fields {
			if !f.present {
				continue
			}
			var m strings.Builder
			m.WriteString(inner + jsonLine(v.s.props[i].name) + ": ")
			f.write(&m, inner)
			members = append(members, m.String())
		}
		if ex := strings.TrimSpace(v.extra); ex != "" {
			members = append(members, extraMembers(ex, inner)...)
		}
		if len(members) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n" + strings.Join(members, ",\n") + "\n" + indent + "}")
	case argArray:
		if len(v.elems) == 0 {
			b.WriteString("[]")
			return
		}
		inner := indent + "  "
		b.WriteString("[\n")
		for i, e := range v.elems {
			if i > 0 {
				b.WriteString(",\n")
			}
			b.WriteString(inner)
			if !e.present && e.kind() != argObject {
				b.WriteString("null")
				continue
			}
			e.write(b, inner)
		}
		b.WriteString("\n" + indent + "]")
	}
}

// extraMembers are the members of an object's undeclared fields, in their
// written order, or the text verbatim when it is not a JSON object.
func extraMembers(ex, indent string) []string {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(ex), &m) != nil {
		return []string{indent + ex}
	}
	var out []string
	for _, k := range orderedKeys(json.RawMessage(ex)) {
		out = append(out, indent+jsonLine(k)+": "+jsonLine(m[k]))
	}
	return out
}

func isJSONNumber(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || !(s[0] == '-' || s[0] >= '0' && s[0] <= '9') {
		return false
	}
	var n json.Number
	return json.Unmarshal([]byte(s), &n) == nil
}

// at follows a path of field and element indices down from v.
func (v *argNode) at(path []int) *argNode {
	cur := v
	for _, i := range path {
		switch cur.kind() {
		case argObject:
			if i >= len(cur.fields) {
				return nil
			}
			cur = cur.fields[i]
		case argArray:
			if i >= len(cur.elems) {
				return nil
			}
			cur = cur.elems[i]
		default:
			return nil
		}
	}
	return cur
}

// name is the field path of path, as the validator writes it
// (flights[0].date).
func (v *argNode) name(path []int) string {
	var b strings.Builder
	cur := v
	for _, i := range path {
		switch cur.kind() {
		case argObject:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(cur.s.props[i].name)
			cur = cur.fields[i]
		case argArray:
			b.WriteString("[" + itoa(i) + "]")
			cur = cur.elems[i]
		}
	}
	return b.String()
}

// addElem appends an empty element to the array at v and returns it.
func (v *argNode) addElem() *argNode {
	e := newArgNode(v.s.items)
	e.present = true // an element is always written, if only as ""
	v.elems = append(v.elems, e)
	v.present = true
	return e
}

// removeElem drops element i of the array at v.
func (v *argNode) removeElem(i int) {
	v.elems = slices.Delete(v.elems, i, i+1)
}

// moveElem swaps element i with i+delta; false when out of range.
func (v *argNode) moveElem(i, delta int) bool {
	j := i + delta
	if i < 0 || j < 0 || i >= len(v.elems) || j >= len(v.elems) {
		return false
	}
	v.elems[i], v.elems[j] = v.elems[j], v.elems[i]
	return true
}
