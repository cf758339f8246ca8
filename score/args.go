package score

import (
	"bytes"
	"encoding/json"

	"github.com/goldtrace/goldtrace/gold"
)

// Argument checking of one expected call against one predicted call of the
// same tool.

// evalPair compares expected call e (its args parsed at ei) with predicted
// call j.
func (s *Scorer) evalPair(e *gold.ExpectedCall, ei int32, j int) pairEval {
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

func (s *Scorer) checkArgs(e *gold.ExpectedCall, ei, pi int32, tool int, ev *pairEval) {
	if ei >= 0 {
		for x := s.f.Nodes[ei].First; x >= 0; x = s.f.Nodes[x].Next {
			key := s.f.Nodes[x].Key
			rule, _ := s.topRule(e, key)
			pv := s.f.Member(pi, key)
			if pv < 0 {
				if !rule.Optional {
					s.addIssue(ev, KindMissingArg, key, s.f.Nodes[x].Raw, nil)
				}
				continue
			}
			s.checkValue(rule, x, pv, key, tool, ev)
		}
	}
	// Rules for arguments the gold gives no value for: optional ones that
	// may be omitted, or ones only constrained by any_of.
	for k, rule := range e.ArgRules {
		if gold.IsPointer(k) {
			tokens, err := gold.ParsePointer(k)
			if err != nil || len(tokens) != 1 {
				continue // nested rules apply inside their argument's value
			}
			k = tokens[0]
			if _, plain := e.ArgRules[k]; plain {
				continue
			}
		}
		if s.f.MemberString(ei, k) >= 0 {
			continue
		}
		pv := s.f.MemberString(pi, k)
		if pv < 0 {
			if !rule.Optional {
				s.addIssue(ev, KindMissingArg, []byte(k), firstRaw(rule.AnyOf), nil)
			}
			continue
		}
		s.checkValue(rule, -1, pv, []byte(k), tool, ev)
	}
	for y := s.f.Nodes[pi].First; y >= 0; y = s.f.Nodes[y].Next {
		key := s.f.Nodes[y].Key
		if s.f.Member(ei, key) >= 0 {
			continue
		}
		if _, ok := s.topRule(e, key); ok {
			continue
		}
		// Passing an argument with its schema default is the same call as
		// omitting it.
		if d := s.schemaDefault(tool, key); d >= 0 && s.f.Equal(d, y, false) {
			continue
		}
		s.addIssue(ev, KindUnexpectedArg, key, nil, s.f.Nodes[y].Raw)
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
func (s *Scorer) checkValue(rule gold.ArgRule, x, pv int32, key []byte, tool int, ev *pairEval) {
	if rule.Match == gold.MatchAny {
		return
	}
	fuzzy := rule.Match == gold.MatchFuzzy
	typeOK := false
	s.fail = nestFail{}
	var want []byte
	if x >= 0 {
		want = s.f.Nodes[x].Raw
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
		ai, err := s.f.Parse(alt)
		if err != nil {
			continue
		}
		if want == nil {
			want = alt
		}
		if s.typeOK(ai, pv, key, tool) {
			typeOK = true
			if s.f.Equal(ai, pv, fuzzy) {
				return
			}
		}
	}
	if rule.Optional {
		d := s.schemaDefault(tool, key)
		if d >= 0 && s.f.Equal(d, pv, fuzzy) {
			return
		}
		if want == nil {
			// Only omission (or the default) is accepted.
			want = []byte("(omitted)")
			typeOK = d < 0 || s.f.Nodes[d].Kind == s.f.Nodes[pv].Kind
			if d >= 0 {
				want = s.f.Nodes[d].Raw
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
	s.addIssue(ev, kind, key, want, s.f.Nodes[pv].Raw)
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
		return s.f.Nodes[x].Kind == s.f.Nodes[pv].Kind
	}
	prop := s.schemaProperty(tool, key)
	st := s.typeName(prop)
	if st == "" {
		return pyType(&s.f.Nodes[x]) == pyType(&s.f.Nodes[pv])
	}
	if st == "any" {
		return true
	}
	if matchesSchemaType(&s.f.Nodes[pv], st, true) {
		if st != "array" && st != "tuple" {
			return true
		}
		items := s.typeName(s.f.MemberString(prop, "items"))
		if items == "" || items == "any" {
			return true
		}
		var first *gold.Node
		if s.f.Nodes[x].Kind == gold.KindArray && s.f.Nodes[x].First >= 0 {
			first = &s.f.Nodes[s.f.Nodes[x].First]
		}
		for e := s.f.Nodes[pv].First; e >= 0; e = s.f.Nodes[e].Next {
			el := &s.f.Nodes[e]
			if !matchesSchemaType(el, items, false) && (first == nil || pyType(el) != pyType(first)) {
				return false
			}
		}
		return true
	}
	// BFCL accepts a value of the gold value's own type (its "variable" case).
	return pyType(&s.f.Nodes[x]) == pyType(&s.f.Nodes[pv])
}

// pyType is the Python type BFCL's checker would see for a JSON value.
func pyType(n *gold.Node) string {
	switch n.Kind {
	case gold.KindNumber:
		if gold.IsIntegerLiteral(n.Text) {
			return "int"
		}
		return "float"
	case gold.KindString:
		return "str"
	case gold.KindBool:
		return "bool"
	case gold.KindArray:
		return "list"
	case gold.KindObject:
		return "dict"
	}
	return "None"
}

// matchesSchemaType applies BFCL's type rule; ints pass for floats only at
// the top level.
func matchesSchemaType(n *gold.Node, schemaType string, top bool) bool {
	switch schemaType {
	case "integer":
		return n.Kind == gold.KindNumber && gold.IsIntegerLiteral(n.Text)
	case "float", "number":
		return n.Kind == gold.KindNumber && (top || !gold.IsIntegerLiteral(n.Text))
	case "string":
		return n.Kind == gold.KindString
	case "boolean":
		return n.Kind == gold.KindBool
	case "array", "tuple":
		return n.Kind == gold.KindArray
	case "dict", "object":
		return n.Kind == gold.KindObject
	}
	return false
}

// schemaProperty returns the schema node of argument key of tool, or -1.
func (s *Scorer) schemaProperty(tool int, key []byte) int32 {
	return s.f.Member(s.f.MemberString(s.schema(tool), "properties"), key)
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
			if idx, err := s.f.Parse(params); err == nil {
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
func (s *Scorer) missingRequired(e *gold.ExpectedCall, ei, pi int32, tool int, ev *pairEval) {
	req := s.f.MemberString(s.schema(tool), "required")
	if req < 0 || s.f.Nodes[req].Kind != gold.KindArray {
		return
	}
	for r := s.f.Nodes[req].First; r >= 0; r = s.f.Nodes[r].Next {
		if s.f.Nodes[r].Kind != gold.KindString {
			continue
		}
		key := s.f.Nodes[r].Text
		if s.f.Member(pi, key) >= 0 {
			continue
		}
		rule, hasRule := s.topRule(e, key)
		if (hasRule || s.f.Member(ei, key) >= 0) && !rule.Optional {
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
	return s.f.MemberString(s.schemaProperty(tool, key), "default")
}

// typeName is the "type" of a schema node when it is a string, else "".
func (s *Scorer) typeName(prop int32) string {
	t := s.f.MemberString(prop, "type")
	if t < 0 || s.f.Nodes[t].Kind != gold.KindString {
		return ""
	}
	return string(s.f.Nodes[t].Text)
}
