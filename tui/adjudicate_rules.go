package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/score"
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

// ruleRow is one argument of the chosen answer in the rules form.
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

// spec is the row's rule for store.Resolution; ok is false for the default
// (exact, required), which needs no rule.
func (r ruleRow) spec() (review.ArgRuleSpec, bool) {
	s := review.ArgRuleSpec{Tool: r.tool, Arg: r.arg}
	switch r.rule {
	case ruleFuzzy:
		s.Rule.Match = score.MatchFuzzy
	case ruleAny:
		s.Rule.Match = score.MatchAny
	case ruleOptional:
		s.Rule.Optional = true
	case ruleAnyOf:
		s.Rule.AnyOf = r.others
	default:
		return s, false
	}
	return s, true
}

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
			parts = append(parts, r.arg+"="+r.describe())
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
		nameW = max(nameW, ansi.StringWidth(r.tool+"."+r.arg))
	}
	first := 0
	if f.cursor >= f.height {
		first = f.cursor - f.height + 1
	}
	var lines []string
	for i := first; i < len(f.rows) && i < first+f.height; i++ {
		r := f.rows[i]
		name := r.tool + "." + r.arg
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

// argKeys are the top-level keys of an arguments object, sorted; none when
// the arguments are not an object.
func argKeys(args json.RawMessage) []string {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// argValue is one argument's raw value, nil when absent.
func argValue(args json.RawMessage, name string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return nil
	}
	return m[name]
}

// compactJSON is raw on one line (verbatim when it is not JSON).
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return oneLine(string(raw))
	}
	return b.String()
}
