package tui

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/trace"
)

// The production model's call as the label screen shows it once revealed:
// one line per leaf value, names aligned (flights[1].date  2024-05-24 ⚠),
// so a deep booking reads at a glance; once copied into the form, each
// value the form has changed since is marked with what it is now.

// argLeaf is one leaf of a call's arguments: its path as the validator
// writes it and its value as one line (text unquoted).
type argLeaf struct {
	path  string
	value string
}

// argLeaves flattens JSON arguments into leaves, an object's fields in
// the order of schema (the form's: required first), then the rest in
// their written order; an empty object or list is a leaf ({} / []). ok is
// false when raw is not JSON. schema may be nil.
func argLeaves(raw json.RawMessage, schema *argSchema) ([]argLeaf, bool) {
	var out []argLeaf
	var walk func(raw json.RawMessage, path string, s *argSchema) bool
	walk = func(raw json.RawMessage, path string, s *argSchema) bool {
		raw = bytes.TrimSpace(raw)
		switch {
		case len(raw) > 0 && raw[0] == '{':
			var m map[string]json.RawMessage
			if json.Unmarshal(raw, &m) != nil {
				return false
			}
			if len(m) == 0 {
				out = append(out, argLeaf{path, "{}"})
			}
			for _, k := range schemaOrder(orderedKeys(raw), s) {
				p := k
				if path != "" {
					p = path + "." + k
				}
				var inner *argSchema
				if s != nil && s.kind == argObject {
					if prop := s.prop(k); prop != nil {
						inner = prop.schema
					}
				}
				if !walk(m[k], p, inner) {
					return false
				}
			}
		case len(raw) > 0 && raw[0] == '[':
			var a []json.RawMessage
			if json.Unmarshal(raw, &a) != nil {
				return false
			}
			if len(a) == 0 {
				out = append(out, argLeaf{path, "[]"})
			}
			var items *argSchema
			if s != nil && s.kind == argArray {
				items = s.items
			}
			for i, el := range a {
				if !walk(el, path+"["+itoa(i)+"]", items) {
					return false
				}
			}
		default:
			var s string
			if json.Unmarshal(raw, &s) == nil {
				out = append(out, argLeaf{path, s})
				return true
			}
			if !json.Valid(raw) {
				return false
			}
			out = append(out, argLeaf{path, string(raw)})
		}
		return true
	}
	ok := walk(raw, "", schema)
	return out, ok
}

// schemaOrder is keys with an object schema's properties first, in its
// order, then the others as they came.
func schemaOrder(keys []string, s *argSchema) []string {
	if s == nil || s.kind != argObject {
		return keys
	}
	out := make([]string, 0, len(keys))
	has := map[string]bool{}
	for _, k := range keys {
		has[k] = true
	}
	for _, p := range s.props {
		if has[p.name] {
			out = append(out, p.name)
			delete(has, p.name)
		}
	}
	for _, k := range keys {
		if has[k] {
			out = append(out, k)
		}
	}
	return out
}

// observedTree is how the model's calls are drawn on the label screen.
type observedTree struct {
	// Marks are, per observed call, the leaves a check flags: "✗" for an
	// error, "⚠" for a warning (a value that appears nowhere).
	Marks []map[string]string
	// Now are, per observed call, the label's arguments for that call once
	// the model's call was copied into the form ("" = not copied).
	Now []string
	// Schemas are, per observed call, its tool's schema (the order of the
	// lines); nil when the tool is unknown.
	Schemas []*argSchema
}

// callTree is one observed call's lines in width columns: "→ tool", then
// one aligned line per leaf, values wrapped under themselves.
func (t observedTree) callTree(s *Styles, i int, c trace.Call, width int) []string {
	var schema *argSchema
	if i < len(t.Schemas) {
		schema = t.Schemas[i]
	}
	leaves, ok := argLeaves(c.Arguments, schema)
	if c.Unparseable || !ok {
		return nil
	}
	var marks map[string]string
	if i < len(t.Marks) {
		marks = t.Marks[i]
	}
	var now map[string]string
	var added []argLeaf
	if i < len(t.Now) && t.Now[i] != "" {
		if cur, ok := argLeaves(json.RawMessage(t.Now[i]), schema); ok {
			now = map[string]string{}
			had := map[string]bool{}
			for _, l := range leaves {
				had[l.path] = true
			}
			for _, l := range cur {
				now[l.path] = l.value
				if !had[l.path] {
					added = append(added, l)
				}
			}
		}
	}
	nameW := 0
	for _, l := range append(leaves, added...) {
		nameW = max(nameW, ansi.StringWidth(l.path))
	}
	nameW = min(nameW, max(width/2-2, 8))
	out := []string{"→ " + c.Name}
	line := func(name, value, note string, style func(...string) string) {
		valueW := max(width-2-nameW-2, 8)
		vals := wrapWords(value+note, valueW)
		if len(vals) == 0 {
			vals = []string{""}
		}
		names := wrapWords(name, nameW)
		for k := 0; k < max(len(vals), len(names)); k++ {
			n, v := "", ""
			if k < len(names) {
				n = names[k]
			}
			if k < len(vals) {
				v = vals[k]
			}
			out = append(out, "  "+s.Form.Label.Render(n)+strings.Repeat(" ", max(nameW-ansi.StringWidth(n), 0)+2)+style(v))
		}
	}
	for _, l := range leaves {
		note, style := "", s.Role.Body.Render
		if m := marks[l.path]; m != "" {
			note += " " + m
			style = s.Warn.Render
		}
		if now != nil {
			switch v, kept := now[l.path]; {
			case !kept:
				note += " → (removed)"
				style = s.Accent.Render
			case v != l.value:
				note += " → " + v
				style = s.Accent.Render
			}
		}
		line(l.path, l.value, note, style)
	}
	for _, l := range added {
		line(l.path, l.value, " (added)", s.Accent.Render)
	}
	return out
}

// observedTree is how calls (the production model's) are drawn: per call
// its tool's schema and the leaves the label's checks flag, "✗" for an
// error, "⚠" for a warning.
func (f *labelForm) observedTree(calls []trace.Call) observedTree {
	t := observedTree{Marks: make([]map[string]string, len(calls)), Schemas: make([]*argSchema, len(calls))}
	for i, c := range calls {
		tool, ok := f.byName[c.Name]
		if !ok {
			continue
		}
		t.Schemas[i] = parseArgSchema(tool.Parameters)
		if c.Unparseable {
			continue
		}
		marks := map[string]string{}
		v := review.NewArgsValidator(tool)
		args := json.RawMessage(c.RawArguments())
		warnings := append(v.Warnings(args), unseenValues(args, f.haystack, choiceTexts(t.Schemas[i], nil))...)
		for _, w := range warnings {
			marks[w.Field] = "⚠"
		}
		for _, p := range v.Validate(args) {
			marks[p.Field] = "✗"
		}
		t.Marks[i] = marks
	}
	return t
}
