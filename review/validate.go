package review

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/goldtrace/goldtrace/internal/suggest"
	"github.com/goldtrace/goldtrace/internal/toolschema"
	"github.com/goldtrace/goldtrace/trace"
)

// Problem is one reason a label cannot be submitted, in words a domain
// expert understands.
type Problem struct {
	// Call is the 0-based index of the call it concerns, -1 for the label.
	Call int `json:"call"`
	// Field is the argument it concerns ("order_id", "items[0].sku"), or "".
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// String prefixes the message with the call number when there are several.
func (p Problem) String() string { return p.Message }

// MaxRationale is the longest rationale a label may have, in characters:
// the same for the label screen and labels import.
const MaxRationale = 10000

// ValidateLabel checks a label against the tools offered at its item: a
// known decision, calls that fit it, tools that exist there and arguments
// that satisfy each tool's JSON Schema.
func ValidateLabel(l Label, tools []trace.Tool) []Problem {
	return validateLabel(l, tools, ValidateArgs)
}

// LabelValidator checks many labels, compiling each distinct tool schema
// once (compiling it per label was most of checking an imported file).
type LabelValidator struct {
	args map[string]*ArgsValidator // by tool name and parameters
}

// ValidateLabel is ValidateLabel with the compiled schemas kept.
func (lv *LabelValidator) ValidateLabel(l Label, tools []trace.Tool) []Problem {
	return validateLabel(l, tools, func(tool trace.Tool, args json.RawMessage) []Problem {
		key := tool.Name + "\x00" + string(tool.Parameters)
		v, ok := lv.args[key]
		if !ok {
			if lv.args == nil {
				lv.args = map[string]*ArgsValidator{}
			}
			v = NewArgsValidator(tool)
			lv.args[key] = v
		}
		return v.Validate(args)
	})
}

func validateLabel(l Label, tools []trace.Tool, validateArgs func(trace.Tool, json.RawMessage) []Problem) []Problem {
	var out []Problem
	if n := utf8.RuneCountInString(l.Rationale); n > MaxRationale {
		out = append(out, Problem{Call: -1, Message: fmt.Sprintf("the rationale is %d characters; at most %d", n, MaxRationale)})
	}
	if strings.ContainsRune(l.Rationale, 0) {
		// Refused on both engines: PostgreSQL cannot store it, and a
		// project must copy between them.
		out = append(out, Problem{Call: -1, Message: `the rationale holds a NUL character (\u0000)`})
	}
	switch l.Decision {
	case DecisionCall:
		if len(l.Calls) == 0 {
			out = append(out, Problem{Call: -1, Message: "the label says a tool should be called but lists no call"})
		}
	case DecisionNoCall:
		if len(l.Calls) > 0 {
			out = append(out, Problem{Call: -1, Message: "the label says no tool should be called but lists calls"})
		}
		return out
	default:
		return append(out, Problem{Call: -1, Message: fmt.Sprintf("decision must be %q or %q, not %q", DecisionCall, DecisionNoCall, l.Decision)})
	}
	byName := make(map[string]trace.Tool, len(tools))
	for _, t := range tools {
		byName[t.Name] = t
	}
	for i, c := range l.Calls {
		prefix := ""
		if len(l.Calls) > 1 {
			prefix = fmt.Sprintf("call %d: ", i+1)
		}
		tool, ok := byName[c.Tool]
		switch {
		case c.Tool == "":
			out = append(out, Problem{Call: i, Message: prefix + "no tool chosen"})
			continue
		case !ok:
			out = append(out, Problem{Call: i, Message: fmt.Sprintf("%s%q is not one of the tools offered here (%s)",
				prefix, c.Tool, strings.Join(trace.ToolNames(tools), ", "))})
			continue
		}
		for _, p := range validateArgs(tool, c.Args) {
			p.Call, p.Message = i, prefix+p.Message
			out = append(out, p)
		}
	}
	return out
}

// ValidateArgs checks one call's arguments against its tool's schema.
func ValidateArgs(tool trace.Tool, args json.RawMessage) []Problem {
	return NewArgsValidator(tool).Validate(args)
}

// ArgsValidator checks arguments against one tool's schema; build it once
// per tool and call Validate on every edit.
type ArgsValidator struct {
	schema   *toolschema.Schema // nil when the tool has no usable schema
	raw      map[string]any     // the schema as JSON values, for unknown fields
	compiled error
}

// NewArgsValidator compiles the tool's parameter schema. A schema that does
// not compile is not enforced beyond "an object" and unknown fields; the
// reviewer is not blocked by a broken tool definition. Neither are they
// by one that takes too long to check (toolschema's bounds): its
// arguments are then checked as without a schema.
func NewArgsValidator(tool trace.Tool) *ArgsValidator {
	v := &ArgsValidator{}
	if len(bytes.TrimSpace(tool.Parameters)) == 0 {
		return v
	}
	doc, err := decodeJSON(tool.Parameters)
	if err != nil {
		v.compiled = err
		return v
	}
	if m, ok := doc.(map[string]any); ok {
		v.raw = m
	}
	// A tool schema comes from a trace: its $refs are followed within it,
	// never to files or the network.
	if v.schema, err = toolschema.Compile(doc); err != nil {
		v.compiled = err
	}
	return v
}

// decodeJSON decodes exactly one JSON value, numbers kept as written.
func decodeJSON(text []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("invalid character after top-level value")
	}
	return v, nil
}

// Validate returns the problems with args, sorted by field; none when valid.
func (v *ArgsValidator) Validate(args json.RawMessage) []Problem {
	if len(bytes.TrimSpace(args)) == 0 {
		return []Problem{{Call: -1, Message: "the arguments are empty: write {} for a call without arguments"}}
	}
	inst, err := decodeJSON(args)
	if err != nil {
		return []Problem{{Call: -1, Message: jsonSyntaxMessage(args)}}
	}
	if _, ok := inst.(map[string]any); !ok {
		return []Problem{{Call: -1, Message: "the arguments must be an object: { \"name\": value, … }"}}
	}
	var errs []toolschema.Error
	if v.schema != nil {
		errs, _ = v.schema.Validate(inst) // too complex to check: as without a schema
	}
	return v.problems(inst, errs)
}

// problems are the unknown fields of inst and its schema errors in words,
// without repeats, sorted by field.
func (v *ArgsValidator) problems(inst any, errs []toolschema.Error) []Problem {
	var out []Problem
	seen := map[string]bool{}
	add := func(p Problem) {
		if !seen[p.Message] {
			seen[p.Message] = true
			out = append(out, p)
		}
	}
	var allowed []string // undeclared keys the schema lets through
	unknownFields(v.raw, inst, nil, func(p Problem, strict bool) {
		if strict {
			add(p)
		} else {
			allowed = append(allowed, p.Field)
		}
	})
	for _, e := range errs {
		schemaProblems(e, func(p Problem) {
			// "order_id is required" beside an undeclared "ordr_id":
			// name the likely misspelling.
			if strings.HasSuffix(p.Message, " is required") {
				if near := closeSibling(p.Field, allowed); near != "" {
					p.Message += fmt.Sprintf(" (found '%s': a misspelling?)", near)
				}
			}
			add(p)
		})
	}
	// A misspelt field explains its "is required" twin, so it comes first.
	unknown := func(p Problem) bool { return strings.HasPrefix(p.Message, "unknown field") }
	sort.SliceStable(out, func(i, j int) bool {
		if unknown(out[i]) != unknown(out[j]) {
			return unknown(out[i])
		}
		return out[i].Field < out[j].Field
	})
	return out
}

// unknownFields walks inst beside its schema and reports every key the
// schema does not declare: as a problem (strict) where the object's schema
// says additionalProperties: false, as JSON Schema does, and otherwise as
// allowed (strict false), for a warning.
func unknownFields(schema map[string]any, inst any, path []string, report func(p Problem, strict bool)) {
	if schema == nil {
		return
	}
	switch val := inst.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		if props == nil {
			return
		}
		// Absent, additionalProperties lets anything through (a warning);
		// false forbids (a problem); true or a schema admits on purpose.
		strict, open := false, false
		switch ap := schema["additionalProperties"].(type) {
		case bool:
			strict, open = !ap, ap
		case map[string]any:
			open = true
		}
		_, patterned := schema["patternProperties"]
		for _, k := range slices.Sorted(maps.Keys(val)) {
			sub, declared := props[k].(map[string]any)
			if !declared {
				if _, ok := props[k]; ok || patterned || open {
					continue // declared as a boolean schema, or matched by another keyword
				}
				report(unknownProblem(joinField(fieldPath(path), k), k, props, strict), strict)
				continue
			}
			unknownFields(sub, val[k], append(path, k), report)
		}
	case []any:
		items, _ := schema["items"].(map[string]any)
		for i, el := range val {
			unknownFields(items, el, append(path, strconv.Itoa(i)), report)
		}
	}
}

// emptyRequired reports required text fields holding "" (a skeleton's
// placeholder that was never filled): valid JSON Schema, rarely meant.
func emptyRequired(schema map[string]any, inst any, path []string, add func(Problem)) {
	if schema == nil {
		return
	}
	switch val := inst.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		required := map[string]bool{}
		if req, ok := schema["required"].([]any); ok {
			for _, r := range req {
				if name, ok := r.(string); ok {
					required[name] = true
				}
			}
		}
		for _, k := range slices.Sorted(maps.Keys(val)) {
			if s, ok := val[k].(string); ok && s == "" && required[k] {
				field := joinField(fieldPath(path), k)
				add(Problem{Call: -1, Field: field, Message: field + " is empty"})
				continue
			}
			sub, _ := props[k].(map[string]any)
			emptyRequired(sub, val[k], append(path, k), add)
		}
	case []any:
		items, _ := schema["items"].(map[string]any)
		for i, el := range val {
			emptyRequired(items, el, append(path, strconv.Itoa(i)), add)
		}
	}
}

// Warnings are what is allowed by the schema but likely a slip: fields the
// schema does not declare (where it does not forbid them) and required text
// fields left empty. They never block a submit. Arguments that are not a
// JSON object have no warnings (Validate reports them).
func (v *ArgsValidator) Warnings(args json.RawMessage) []Problem {
	var inst any
	if err := json.Unmarshal(args, &inst); err != nil {
		return nil
	}
	if _, ok := inst.(map[string]any); !ok {
		return nil
	}
	var out []Problem
	add := func(p Problem) { out = append(out, p) }
	unknownFields(v.raw, inst, nil, func(p Problem, strict bool) {
		if !strict {
			add(p)
		}
	})
	emptyRequired(v.raw, inst, nil, add)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return out
}

// closeSibling is the undeclared field at the same level as field whose
// name is close to it, "" when none is.
func closeSibling(field string, undeclared []string) string {
	parent, name := splitField(field)
	for _, u := range undeclared {
		if up, un := splitField(u); up == parent && closest(un, []string{name}) != "" {
			return u
		}
	}
	return ""
}

func splitField(field string) (parent, name string) {
	if i := strings.LastIndexByte(field, '.'); i >= 0 {
		return field[:i], field[i+1:]
	}
	return "", field
}

func unknownProblem(field, key string, props map[string]any, strict bool) Problem {
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	msg := fmt.Sprintf("unknown field '%s'", field)
	if !strict {
		msg = fmt.Sprintf("'%s' is not in the tool's schema", field)
	}
	if best := closest(key, names); best != "" {
		msg += " — did you mean " + best + "?"
	} else if len(names) > 0 {
		msg += " — this tool takes " + strings.Join(names, ", ")
	} else {
		msg += " — this tool takes no arguments"
	}
	return Problem{Call: -1, Field: field, Message: msg}
}

// closest is the name within edit distance 2 (or sharing a case-insensitive
// prefix of 3+) of key, "" when none is close.
func closest(key string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		d := suggest.Distance(strings.ToLower(key), strings.ToLower(n))
		if d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// fieldPath renders an instance location: items.0.sku → items[0].sku.
func fieldPath(loc []string) string {
	var b strings.Builder
	for _, p := range loc {
		if _, err := strconv.Atoi(p); err == nil {
			b.WriteString("[" + p + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

func joinField(parent, child string) string {
	if parent == "" {
		return child
	}
	return parent + "." + child
}

func typeWord(t string) string {
	switch t {
	case "string":
		return "text"
	case "number":
		return "a number"
	case "integer":
		return "a whole number"
	case "boolean":
		return "true or false"
	case "object":
		return "an object { … }"
	case "array":
		return "a list [ … ]"
	case "null":
		return "null"
	}
	return t
}

func typeWords(ts []string) string {
	words := make([]string, len(ts))
	for i, t := range ts {
		words[i] = typeWord(t)
	}
	return strings.Join(words, " or ")
}

func display(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case nil:
		return "null"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// jsonSyntaxMessage explains why text is not JSON, with line and column.
func jsonSyntaxMessage(text []byte) string {
	var x any
	err := json.Unmarshal(text, &x)
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se) && strings.Contains(se.Error(), "unexpected end"):
		return "not valid JSON: it ends too early (a closing } or \" is missing)"
	case errors.As(err, &se):
		// Offset is just past the character that broke the parse.
		at := max(int(se.Offset)-1, 0)
		line, col := lineCol(text, at)
		what := "unexpected text"
		if at < len(text) {
			what = fmt.Sprintf("unexpected %q", rune(text[at]))
		}
		return fmt.Sprintf("not valid JSON at line %d, column %d: %s (check quotes, commas and braces)", line, col, what)
	case err != nil:
		return "not valid JSON: " + err.Error()
	}
	return "not valid JSON"
}

func lineCol(text []byte, offset int) (int, int) {
	offset = min(offset, len(text))
	before := text[:offset]
	line := bytes.Count(before, []byte("\n")) + 1
	col := offset - bytes.LastIndexByte(before, '\n')
	return line, col
}

// plural is "1 entry" or "n entries".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
