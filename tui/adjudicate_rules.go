package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/review"
)

// The rules an argument can get in the rules form, in cycling order.
const (
	ruleExact    = "exact"
	ruleFuzzy    = "fuzzy"
	ruleAny      = "any"
	ruleOptional = "optional"
	ruleAnyOf    = "any_of"
)

var ruleCycle = []string{ruleExact, ruleFuzzy, ruleAny, ruleOptional, ruleAnyOf}

// ruleRow is one argument of the chosen answer in the rules form, or a
// value nested in one (arg is then a JSON Pointer).
type ruleRow struct {
	tool, arg string
	value     json.RawMessage
	// others are the values other reviewers gave this argument (calls to
	// the same tool), distinct and different from value: any_of's list.
	others []json.RawMessage
	rule   string
}

// rulesForm lists the chosen answer's arguments with a rule each.
type rulesForm struct {
	styles *Styles
	keys   *AdjudicateKeys
	rows   []ruleRow
	cursor int
	width  int
	height int
}

// newRulesForm lists the arguments of calls (the chosen answer) with exact
// rules, taking any_of candidates from the other labels. previous keeps the
// rules chosen earlier for the same decision.
func newRulesForm(styles *Styles, keys *AdjudicateKeys, calls []review.LabelCall, others []review.Label, previous []ruleRow) rulesForm {
	f := rulesForm{styles: styles, keys: keys}
	seen := map[string]bool{}
	for _, c := range calls {
		for _, arg := range argKeys(c.Args) {
			id := c.Tool + "\x00" + arg
			if seen[id] {
				continue
			}
			seen[id] = true
			v := argValue(c.Args, arg)
			f.rows = append(f.rows, ruleRow{tool: c.Tool, arg: arg, value: v, others: otherValues(c.Tool, arg, v, others), rule: ruleExact})
		}
	}
	for i := range f.rows {
		for _, p := range previous {
			if p.tool == f.rows[i].tool && p.arg == f.rows[i].arg && f.rows[i].allows(p.rule) {
				f.rows[i].rule = p.rule
			}
		}
	}
	return f
}

// otherValues collects the distinct values of arg in other labels' calls to
// tool that differ from v.
func otherValues(tool, arg string, v json.RawMessage, labels []review.Label) []json.RawMessage {
	var out []json.RawMessage
	for _, l := range labels {
		if l.Decision != review.DecisionCall {
			continue
		}
		for _, c := range l.Calls {
			if c.Tool != tool {
				continue
			}
			ov := argValue(c.Args, arg)
			if ov == nil || review.ArgsEqual(ov, v) {
				continue
			}
			dup := false
			for _, o := range out {
				dup = dup || review.ArgsEqual(o, ov)
			}
			if !dup {
				out = append(out, ov)
			}
		}
	}
	return out
}

// allows reports whether the row can take rule (any_of needs other values,
// and fuzzy a string value).
func (r ruleRow) allows(rule string) bool {
	switch rule {
	case ruleAnyOf:
		return len(r.others) > 0
	case ruleFuzzy:
		var s string
		return json.Unmarshal(r.value, &s) == nil
	}
	return true
}

// spec is the row's rule for app.Resolution; ok is false for the default
// (exact, required), which needs no rule.
func (r ruleRow) spec() (review.ArgRuleSpec, bool) {
	s := review.ArgRuleSpec{Tool: r.tool, Arg: r.arg}
	switch r.rule {
	case ruleFuzzy:
		s.Rule.Match = gold.MatchFuzzy
	case ruleAny:
		s.Rule.Match = gold.MatchAny
	case ruleOptional:
		s.Rule.Optional = true
	case ruleAnyOf:
		s.Rule.AnyOf = r.others
	default:
		return s, false
	}
	return s, true
}

// name is the row's tool and argument path ("book.flights[0].date").
func (r ruleRow) name() string { return r.tool + "." + gold.DisplayPath(r.arg) }

// describe is the rule in a few words ("any_of: "ORD-2"").
func (r ruleRow) describe() string {
	if r.rule != ruleAnyOf {
		return r.rule
	}
	vals := make([]string, len(r.others))
	for i, o := range r.others {
		vals[i] = compactJSON(o)
	}
	return "any_of: " + strings.Join(vals, ", ")
}

// ruleSpecs are the non-default rules of rows.
func ruleSpecs(rows []ruleRow) []review.ArgRuleSpec {
	var out []review.ArgRuleSpec
	for _, r := range rows {
		if s, ok := r.spec(); ok {
			out = append(out, s)
		}
	}
	return out
}

// rulesSummary is the non-default rules in one line ("order_id=fuzzy").
func rulesSummary(rows []ruleRow) string {
	var parts []string
	for _, r := range rows {
		if r.rule != ruleExact {
			parts = append(parts, gold.DisplayPath(r.arg)+"="+r.describe())
		}
	}
	return strings.Join(parts, ", ")
}

// cycle moves the selected row's rule by step, skipping rules it cannot take.
func (f *rulesForm) cycle(step int) {
	if len(f.rows) == 0 {
		return
	}
	row := &f.rows[f.cursor]
	i := indexOf(ruleCycle, row.rule)
	for range ruleCycle {
		i = (i + step + len(ruleCycle)) % len(ruleCycle)
		if row.allows(ruleCycle[i]) {
			row.rule = ruleCycle[i]
			return
		}
	}
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return 0
}

// Update moves the cursor and cycles rules; it never handles enter or esc.
func (f *rulesForm) Update(msg tea.KeyMsg) {
	switch {
	case key.Matches(msg, f.keys.RuleUp):
		f.cursor = max(f.cursor-1, 0)
	case key.Matches(msg, f.keys.RuleDown):
		f.cursor = min(f.cursor+1, len(f.rows)-1)
	case key.Matches(msg, f.keys.RuleCycle):
		f.cycle(1)
	case key.Matches(msg, f.keys.RuleBack):
		f.cycle(-1)
	}
}

// SetSize bounds the form; rows beyond height scroll with the cursor.
func (f *rulesForm) SetSize(w, h int) { f.width, f.height = w, max(h, 1) }

// View lists the rows, the selected one marked with ▸ as well as colour.
func (f *rulesForm) View() string {
	s := f.styles
	nameW := 0
	for _, r := range f.rows {
		nameW = max(nameW, ansi.StringWidth(r.name()))
	}
	first := 0
	if f.cursor >= f.height {
		first = f.cursor - f.height + 1
	}
	var lines []string
	for i := first; i < len(f.rows) && i < first+f.height; i++ {
		r := f.rows[i]
		name := r.name()
		name += strings.Repeat(" ", nameW-ansi.StringWidth(name))
		rule := fmt.Sprintf("[%s]", r.describe())
		valW := max(f.width-nameW-ansi.StringWidth(rule)-6, 4)
		val := ansi.Truncate(compactJSON(r.value), valW, "…")
		val += strings.Repeat(" ", max(valW-ansi.StringWidth(val), 0))
		line := fmt.Sprintf("%s  %s  %s", name, val, rule)
		if i == f.cursor {
			lines = append(lines, s.Form.Selected.Render("▸ "+line))
			continue
		}
		lines = append(lines, "  "+s.Form.Label.Render(name)+"  "+val+"  "+s.Accent.Render(rule))
	}
	return strings.Join(lines, "\n")
}

// maxRuleDepth bounds how deep the rules form lists nested values.
const maxRuleDepth = 4

// argKeys are the rule keys of an arguments object: each top-level
// argument by name, then (depth first, in key order) every value nested in
// an object or array by its JSON Pointer ("/flights/0/date"), so a lead can
// make a nested field optional, any or one of several values. None when
// the arguments are not an object.
func argKeys(args json.RawMessage) []string {
	var root any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if dec.Decode(&root) != nil {
		return nil
	}
	m, ok := root.(map[string]any)
	if !ok {
		return nil
	}
	var keys []string
	var walk func(v any, path []string)
	walk = func(v any, path []string) {
		keys = append(keys, gold.RuleKey(path))
		if len(path) >= maxRuleDepth {
			return
		}
		switch t := v.(type) {
		case map[string]any:
			names := make([]string, 0, len(t))
			for k := range t {
				names = append(names, k)
			}
			sort.Strings(names)
			for _, k := range names {
				walk(t[k], append(path[:len(path):len(path)], k))
			}
		case []any:
			for i, e := range t {
				walk(e, append(path[:len(path):len(path)], strconv.Itoa(i)))
			}
		}
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		walk(m[k], []string{k})
	}
	return keys
}

// argValue is the raw value a rule key names (an argument, or a JSON
// Pointer into the arguments), nil when absent.
func argValue(args json.RawMessage, name string) json.RawMessage {
	tokens := []string{name}
	if gold.IsPointer(name) {
		var err error
		if tokens, err = gold.ParsePointer(name); err != nil {
			return nil
		}
	}
	cur := args
	for _, t := range tokens {
		trimmed := bytes.TrimSpace(cur)
		if len(trimmed) > 0 && trimmed[0] == '[' {
			var arr []json.RawMessage
			i, err := strconv.Atoi(t)
			if json.Unmarshal(trimmed, &arr) != nil || err != nil || i < 0 || i >= len(arr) {
				return nil
			}
			cur = arr[i]
			continue
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(trimmed, &m) != nil {
			return nil
		}
		v, ok := m[t]
		if !ok {
			return nil
		}
		cur = v
	}
	return cur
}

// compactJSON is raw on one line (verbatim when it is not JSON).
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return oneLine(string(raw))
	}
	return b.String()
}
