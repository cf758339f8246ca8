package score

import (
	"bytes"
	"encoding/json"
)

// Argument checking of one expected call against one predicted call of the
// same tool.

// evalPair compares expected call e (its args parsed at ei) with predicted
// call j.
func (s *Scorer) evalPair(e *ExpectedCall, ei int32, j int) pairEval {
	var ev pairEval
	if !s.profile.sameTool(e.Tool, s.predName[j]) && !s.profile.sameTool(e.Tool, s.calls[j].Name) {
		ev.issue = issue{kind: KindWrongTool}
		return ev
	}
	ev.sameTool = true
	pi := s.predArgs[j]
	if pi < 0 {
		ev.errs = costArgsCap
		ev.issue = issue{kind: KindUnparseableArgs, got: s.calls[j].Arguments}
		return ev
	}
	ev.shapeOK = true
	s.checkArgs(e, ei, pi, s.predTool[j], &ev)
	ev.exact = ev.errs == 0
	return ev
}

func (s *Scorer) checkArgs(e *ExpectedCall, ei, pi int32, tool int, ev *pairEval) {
	if ei >= 0 {
		for x := s.f.nodes[ei].first; x >= 0; x = s.f.nodes[x].next {
			key := s.f.nodes[x].key
			rule, _ := s.topRule(e, key)
			pv := s.f.member(pi, key)
			if pv < 0 {
				if !rule.Optional {
					s.addIssue(ev, KindMissingArg, key, s.f.nodes[x].raw, nil)
				}
				continue
			}
			s.checkValue(rule, x, pv, key, tool, ev)
		}
	}
	// Rules for arguments the gold gives no value for: optional ones that
	// may be omitted, or ones only constrained by any_of.
	for k, rule := range e.ArgRules {
		if IsPointer(k) {
			tokens, err := ParsePointer(k)
			if err != nil || len(tokens) != 1 {
				continue // nested rules apply inside their argument's value
			}
			k = tokens[0]
			if _, plain := e.ArgRules[k]; plain {
				continue
			}
		}
		if s.f.memberString(ei, k) >= 0 {
			continue
		}
		pv := s.f.memberString(pi, k)
		if pv < 0 {
			if !rule.Optional {
				s.addIssue(ev, KindMissingArg, []byte(k), firstRaw(rule.AnyOf), nil)
			}
			continue
		}
		s.checkValue(rule, -1, pv, []byte(k), tool, ev)
	}
	for y := s.f.nodes[pi].first; y >= 0; y = s.f.nodes[y].next {
		key := s.f.nodes[y].key
		if s.f.member(ei, key) >= 0 {
			continue
		}
		if _, ok := s.topRule(e, key); ok {
			continue
		}
		// Passing an argument with its schema default is the same call as
		// omitting it.
		if d := s.schemaDefault(tool, key); d >= 0 && s.equalValues(d, y, false) {
			continue
		}
		s.addIssue(ev, KindUnexpectedArg, key, nil, s.f.nodes[y].raw)
	}
	if s.profile.schemaRequired {
		s.missingRequired(e, ei, pi, tool, ev)
	}
}

func orRaw(raw []byte, none string) []byte {
	if raw == nil {
		return []byte(none)
	}
	return raw
}

func firstRaw(vals []json.RawMessage) []byte {
	if len(vals) == 0 {
		return nil
	}
	return vals[0]
}

// checkValue checks predicted value pv against expected value x (-1 when
// the gold gives none) and the rule's alternatives.
func (s *Scorer) checkValue(rule ArgRule, x, pv int32, key []byte, tool int, ev *pairEval) {
	if rule.Match == MatchAny {
		return
	}
	fuzzy := rule.Match == MatchFuzzy
	typeOK := false
	s.fail = nestFail{}
	var want []byte
	if x >= 0 {
		want = s.f.nodes[x].raw
		if s.typeOK(x, pv, key, tool) {
			typeOK = true
			if s.matchValue(x, pv, key, fuzzy) {
				return
			}
		}
	}
	nested := s.fail
	s.fail = nestFail{}
	for _, alt := range rule.AnyOf {
		ai, err := s.f.parse(alt)
		if err != nil {
			continue
		}
		if want == nil {
			want = alt
		}
		if s.typeOK(ai, pv, key, tool) {
			typeOK = true
			if s.equalValues(ai, pv, fuzzy) {
				return
			}
		}
	}
	if rule.Optional {
		d := s.schemaDefault(tool, key)
		if d >= 0 && s.equalValues(d, pv, fuzzy) {
			return
		}
		if want == nil {
			// Only omission (or the default) is accepted.
			want = []byte("(omitted)")
			typeOK = d < 0 || s.f.nodes[d].kind == s.f.nodes[pv].kind
			if d >= 0 {
				want = s.f.nodes[d].raw
			}
		}
	}
	kind := KindWrongValue
	if !typeOK {
		kind = KindWrongType
	}
	if nested.set && typeOK {
		// The innermost nested value that failed says more than the whole.
		s.addIssue(ev, kind, []byte(nested.path), orRaw(nested.want, "(omitted)"), orRaw(nested.got, "(omitted)"))
		return
	}
	s.addIssue(ev, kind, key, want, s.f.nodes[pv].raw)
}

// addIssue records one failing argument and keeps the most severe issue
// (ties: the smallest key, so the message does not depend on map order).
func (s *Scorer) addIssue(ev *pairEval, kind ErrorKind, key, want, got []byte) {
	ev.errs++
	if kind != KindWrongValue {
		ev.shapeOK = false
	}
	cur := ev.issue.kind
	if cur == "" || kind.rank() < cur.rank() || (kind == cur && bytes.Compare(key, ev.issue.key) < 0) {
		ev.issue = issue{kind: kind, key: key, want: want, got: got}
	}
}

// typeOK reports whether predicted value pv has an acceptable type for
// expected value x: the same JSON type by default; BFCL's schema-driven rule
// in the BFCL profile.
func (s *Scorer) typeOK(x, pv int32, key []byte, tool int) bool {
	if !s.profile.schemaTypes {
		return s.f.nodes[x].kind == s.f.nodes[pv].kind
	}
	prop := s.schemaProperty(tool, key)
	st := s.typeName(prop)
	if st == "" {
		return pyType(&s.f.nodes[x]) == pyType(&s.f.nodes[pv])
	}
	if st == "any" {
		return true
	}
	if matchesSchemaType(&s.f.nodes[pv], st, true) {
		if st != "array" && st != "tuple" {
			return true
		}
		items := s.typeName(s.f.memberString(prop, "items"))
		if items == "" || items == "any" {
			return true
		}
		var first *node
		if s.f.nodes[x].kind == kindArray && s.f.nodes[x].first >= 0 {
			first = &s.f.nodes[s.f.nodes[x].first]
		}
		for e := s.f.nodes[pv].first; e >= 0; e = s.f.nodes[e].next {
			el := &s.f.nodes[e]
			if !matchesSchemaType(el, items, false) && (first == nil || pyType(el) != pyType(first)) {
				return false
			}
		}
		return true
	}
	// BFCL accepts a value of the gold value's own type (its "variable" case).
	return pyType(&s.f.nodes[x]) == pyType(&s.f.nodes[pv])
}

// pyType is the Python type BFCL's checker would see for a JSON value.
func pyType(n *node) string {
	switch n.kind {
	case kindNumber:
		if isIntegerLiteral(n.text) {
			return "int"
		}
		return "float"
	case kindString:
		return "str"
	case kindBool:
		return "bool"
	case kindArray:
		return "list"
	case kindObject:
		return "dict"
	}
	return "None"
}

// matchesSchemaType applies BFCL's type rule; ints pass for floats only at
// the top level.
func matchesSchemaType(n *node, schemaType string, top bool) bool {
	switch schemaType {
	case "integer":
		return n.kind == kindNumber && isIntegerLiteral(n.text)
	case "float", "number":
		return n.kind == kindNumber && (top || !isIntegerLiteral(n.text))
	case "string":
		return n.kind == kindString
	case "boolean":
		return n.kind == kindBool
	case "array", "tuple":
		return n.kind == kindArray
	case "dict", "object":
		return n.kind == kindObject
	}
	return false
}

// schemaProperty returns the schema node of argument key of tool, or -1.
func (s *Scorer) schemaProperty(tool int, key []byte) int32 {
	return s.f.member(s.f.memberString(s.schema(tool), "properties"), key)
}

// schema returns the node of tool's parameters schema (parsed once per
// case), or -1.
func (s *Scorer) schema(tool int) int32 {
	if tool < 0 {
		return -1
	}
	root := s.schemaRoot[tool]
	if root == -2 {
		root = -1
		if params := s.c.Tools[tool].Parameters; len(params) > 0 {
			if idx, err := s.f.parse(params); err == nil {
				root = idx
			}
		}
		s.schemaRoot[tool] = root
	}
	return root
}

// missingRequired reports, as BFCL's checker does before anything else,
// each argument the tool's schema lists as required that the prediction
// leaves out although the gold lets it be left out (an optional rule), or
// does not mention it at all. BFCL cannot express "optional" for a required
// parameter: its possible answer "" is never reached.
func (s *Scorer) missingRequired(e *ExpectedCall, ei, pi int32, tool int, ev *pairEval) {
	req := s.f.memberString(s.schema(tool), "required")
	if req < 0 || s.f.nodes[req].kind != kindArray {
		return
	}
	for r := s.f.nodes[req].first; r >= 0; r = s.f.nodes[r].next {
		if s.f.nodes[r].kind != kindString {
			continue
		}
		key := s.f.nodes[r].text
		if s.f.member(pi, key) >= 0 {
			continue
		}
		rule, hasRule := s.topRule(e, key)
		if (hasRule || s.f.member(ei, key) >= 0) && !rule.Optional {
			continue // reported as missing already
		}
		s.addIssue(ev, KindMissingArg, key, []byte("(required by the tool's schema)"), nil)
	}
}

// schemaDefault returns the node of the schema default of argument key, or
// -1 (always -1 when the profile has no schema-default rule).
func (s *Scorer) schemaDefault(tool int, key []byte) int32 {
	if !s.profile.schemaDefaults {
		return -1
	}
	return s.f.memberString(s.schemaProperty(tool, key), "default")
}

// typeName is the "type" of a schema node when it is a string, else "".
func (s *Scorer) typeName(prop int32) string {
	t := s.f.memberString(prop, "type")
	if t < 0 || s.f.nodes[t].kind != kindString {
		return ""
	}
	return string(s.f.nodes[t].text)
}
