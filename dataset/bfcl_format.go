package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// The bfcl format is what the Berkeley Function Calling Leaderboard's AST
// checker reads:
//
//   - NAME-vN.bfcl.jsonl, the questions: {"id","question":[[messages]],
//     "function":[{name, description, parameters}]}, the schemas with BFCL's
//     type names ("dict" for object, "float" for number);
//   - NAME-vN.bfcl.possible_answer.jsonl: {"id","ground_truth":[{TOOL:
//     {PARAM:[accepted values…]}}]}: the gold value first, then any_of
//     values, then "" when the argument is optional. An argument whose schema
//     is an object is a nested possible answer [{KEY:[values…]}] (a list of
//     objects: [[{KEY:[values…]}, …]]), so rules on "/PARAM/KEY" (and
//     "/PARAM/N/KEY") pointers become the nested lists. A no-call item has
//     "ground_truth":[] (BFCL's irrelevance category);
//   - NAME-vN.bfcl.report.txt: every rule BFCL cannot express, one per line
//     (fuzzy and any matches, rules deeper than one nested level, acceptable
//     alternative call lists): there the possible answer is stricter or looser
//     than the gold.

func writeBFCLQuestions(w io.Writer, content io.Reader, _ *Manifest) error {
	type function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	lines := newJSONLines(w)
	err := eachRecord(content, func(r gold.Record) error {
		fns := make([]function, len(r.AvailableTools))
		for i, t := range r.AvailableTools {
			params, err := bfclSchema(t.Parameters)
			if err != nil {
				return fmt.Errorf("tool %s: %w", t.Name, err)
			}
			fns[i] = function{t.Name, t.Description, params}
		}
		return lines.write(struct {
			ID       string                `json:"id"`
			Question [][]trace.ChatMessage `json:"question"`
			Function []function            `json:"function"`
		}{r.ID, [][]trace.ChatMessage{trace.ChatMessages(r.Input.Messages)}, fns})
	})
	if err != nil {
		return err
	}
	return lines.flush()
}

// bfclSchema renames JSON Schema types to BFCL's: object → dict, number →
// float. A tool without parameters gets an empty dict schema.
func bfclSchema(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage(`{"type":"dict","properties":{}}`), nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	var rename func(any)
	rename = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, sub := range x {
				if k == "type" {
					switch sub {
					case "object":
						x[k] = "dict"
					case "number":
						x[k] = "float"
					}
					continue
				}
				rename(sub)
			}
		case []any:
			for _, sub := range x {
				rename(sub)
			}
		}
	}
	rename(v)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func writeBFCLAnswers(w io.Writer, content io.Reader, _ *Manifest) error {
	lines := newJSONLines(w)
	err := eachRecord(content, func(r gold.Record) error {
		gt, _, err := bfclGroundTruth(r)
		if err != nil {
			return err
		}
		return lines.write(struct {
			ID          string           `json:"id"`
			GroundTruth []map[string]any `json:"ground_truth"`
		}{r.ID, gt})
	})
	if err != nil {
		return err
	}
	return lines.flush()
}

func writeBFCLReport(w io.Writer, content io.Reader, m *Manifest) error {
	bw := bufio.NewWriter(w)
	var notes []string
	noCall := 0
	err := eachRecord(content, func(r gold.Record) error {
		_, unexpressed, err := bfclGroundTruth(r)
		if err != nil {
			return err
		}
		if len(r.ExpectedCalls) == 0 {
			noCall++
		}
		for _, u := range unexpressed {
			notes = append(notes, r.ID+" "+u)
		}
		return nil
	})
	if err != nil {
		return err
	}
	name := "this version"
	if m != nil {
		name = m.Name + " v" + fmt.Sprint(m.Version)
	}
	fmt.Fprintf(bw, "# BFCL export of %s: rules BFCL's possible answers cannot express\n", name)
	fmt.Fprintf(bw, "# %d no-call items have \"ground_truth\": [] (check them as BFCL's irrelevance category).\n", noCall)
	if len(notes) == 0 {
		fmt.Fprintln(bw, "# none: every gold rule is expressed exactly")
	} else {
		rules := fmt.Sprintf("%d rules", len(notes))
		if len(notes) == 1 {
			rules = "1 rule"
		}
		fmt.Fprintf(bw, "# %s; on these items BFCL's verdict can differ from goldtrace score's:\n", rules)
	}
	for _, n := range notes {
		fmt.Fprintln(bw, n)
	}
	return bw.Flush()
}

// BFCLUnexpressed counts the rules of a canonical dataset that the bfcl
// format cannot express (what its report lists).
func BFCLUnexpressed(content io.Reader) (int, error) {
	n := 0
	err := eachRecord(content, func(r gold.Record) error {
		_, u, err := bfclGroundTruth(r)
		n += len(u)
		return err
	})
	return n, err
}

// bfclGroundTruth is r's possible answer and what of r it cannot express.
func bfclGroundTruth(r gold.Record) ([]map[string]any, []string, error) {
	gt := []map[string]any{}
	var unexpressed []string
	schemas := map[string]map[string]any{}
	for _, t := range r.AvailableTools {
		var s map[string]any
		if len(t.Parameters) > 0 && json.Unmarshal(t.Parameters, &s) == nil {
			schemas[t.Name] = s
		}
	}
	for _, c := range r.ExpectedCalls {
		params, u, err := bfclCall(c, schemas[c.Tool])
		if err != nil {
			return nil, nil, fmt.Errorf("expected %s: %w", c.Tool, err)
		}
		unexpressed = append(unexpressed, u...)
		gt = append(gt, map[string]any{c.Tool: params})
	}
	if len(r.Acceptable) > 0 {
		unexpressed = append(unexpressed, fmt.Sprintf("acceptable: %d alternative call list(s) (BFCL has one possible answer per item; only expected_calls is written)", len(r.Acceptable)))
	}
	return gt, unexpressed, nil
}

// bfclCall is one expected call's {PARAM: [values…]} and the rules it
// cannot express.
func bfclCall(c gold.ExpectedCall, schema map[string]any) (map[string]any, []string, error) {
	var args map[string]json.RawMessage
	if len(c.Args) > 0 && string(c.Args) != "null" {
		if err := json.Unmarshal(c.Args, &args); err != nil {
			return nil, nil, fmt.Errorf("args: %w", err)
		}
	}
	// Rules by pointer: a plain key K is the pointer /K.
	rules := map[string]gold.ArgRule{}
	for k, r := range c.ArgRules {
		if !gold.IsPointer(k) {
			k = gold.Pointer(k)
		}
		rules[k] = r
	}
	names := map[string]bool{}
	for k := range args {
		names[k] = true
	}
	for k := range rules {
		if name, ok := childToken(k, ""); ok {
			names[name] = true
		}
	}
	used := map[string]bool{}
	var unexpressed []string
	note := func(ptr, what string) {
		used[ptr] = true
		unexpressed = append(unexpressed, fmt.Sprintf("%s %s: %s", c.Tool, ptr, what))
	}
	props, _ := schema["properties"].(map[string]any)
	required := map[string]bool{}
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			if name, ok := r.(string); ok {
				required[name] = true
			}
		}
	}
	out := map[string]any{}
	for _, name := range sortedKeys(names) {
		ptr := gold.Pointer(name)
		if rules[ptr].Optional && required[name] {
			note(ptr, "optional, but the tool's schema requires it (BFCL checks required parameters first and fails a call that leaves it out)")
		}
		prop, _ := props[name].(map[string]any)
		vals, err := bfclValues(args[name], args[name] != nil, prop, ptr, rules, used, note, 0)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = vals
	}
	for _, ptr := range sortedKeys(rules) {
		if !used[ptr] && ruleMatters(rules[ptr]) {
			note(ptr, "rule below what BFCL's nested possible answers reach (the value is compared exactly)")
		}
	}
	sort.Strings(unexpressed)
	return out, unexpressed, nil
}

// ruleMatters reports whether a rule differs from the default exact,
// required match.
func ruleMatters(r gold.ArgRule) bool {
	return (r.Match != "" && r.Match != gold.MatchExact) || r.Optional || len(r.AnyOf) > 0
}

// bfclValues is the list of accepted values of the value at ptr: nested
// possible answers for an object (or list of objects) argument at the top
// level, plain values below.
func bfclValues(value json.RawMessage, present bool, schema map[string]any, ptr string, rules map[string]gold.ArgRule,
	used map[string]bool, note func(ptr, what string), depth int) ([]any, error) {
	rule, hasRule := rules[ptr]
	if hasRule {
		used[ptr] = true
	}
	switch rule.Match {
	case gold.MatchFuzzy:
		note(ptr, "fuzzy match (BFCL normalises every string its own way; written as exact values)")
	case gold.MatchAny:
		note(ptr, "any value (BFCL has no wildcard; written as the gold value)")
	}
	alternatives := []json.RawMessage{}
	if present {
		alternatives = append(alternatives, value)
	}
	alternatives = append(alternatives, rule.AnyOf...)
	typ, _ := schema["type"].(string)
	items, _ := schema["items"].(map[string]any)
	itemType, _ := items["type"].(string)
	out := []any{}
	for _, alt := range alternatives {
		var v any
		if err := json.Unmarshal(alt, &v); err != nil {
			return nil, err
		}
		switch {
		case depth == 0 && (typ == "object" || typ == "dict") && isObject(v):
			d, err := bfclDict(alt, schema, ptr, rules, used, note)
			if err != nil {
				return nil, err
			}
			out = append(out, d)
		case depth == 0 && typ == "array" && (itemType == "object" || itemType == "dict") && isObjectList(v):
			var elems []json.RawMessage
			if err := json.Unmarshal(alt, &elems); err != nil {
				return nil, err
			}
			list := []any{}
			for i, e := range elems {
				d, err := bfclDict(e, items, fmt.Sprintf("%s/%d", ptr, i), rules, used, note)
				if err != nil {
					return nil, err
				}
				list = append(list, d)
			}
			out = append(out, list)
		default:
			out = append(out, v)
		}
	}
	if rule.Optional {
		out = append(out, "")
	}
	return out, nil
}

// bfclDict is one nested possible answer {KEY:[values…]} of an object.
func bfclDict(raw json.RawMessage, schema map[string]any, ptr string, rules map[string]gold.ArgRule,
	used map[string]bool, note func(ptr, what string)) (map[string]any, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, err
	}
	keys := map[string]bool{}
	for k := range obj {
		keys[k] = true
	}
	for r := range rules {
		if k, ok := childToken(r, ptr); ok {
			keys[k] = true
		}
	}
	props, _ := schema["properties"].(map[string]any)
	out := map[string]any{}
	for _, k := range sortedKeys(keys) {
		prop, _ := props[k].(map[string]any)
		v, ok := obj[k]
		vals, err := bfclValues(v, ok, prop, ptr+gold.Pointer(k), rules, used, note, 1)
		if err != nil {
			return nil, err
		}
		out[k] = vals
	}
	return out, nil
}

func isObject(v any) bool { _, ok := v.(map[string]any); return ok }

func isObjectList(v any) bool {
	l, ok := v.([]any)
	if !ok {
		return false
	}
	for _, e := range l {
		if !isObject(e) {
			return false
		}
	}
	return true
}

// childToken is the last reference token of the JSON Pointer ptr when ptr
// names a direct child of the value at parent ("" is the whole args).
func childToken(ptr, parent string) (string, bool) {
	rest, ok := strings.CutPrefix(ptr, parent)
	if !ok || strings.Count(rest, "/") != 1 {
		return "", false
	}
	tokens, err := gold.ParsePointer(rest)
	if err != nil {
		return "", false
	}
	return tokens[0], true
}
