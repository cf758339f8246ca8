package review

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/goldtrace/goldtrace/gold"
)

// ArgRuleSpec attaches an argument rule to the expected calls of a gold
// answer: to argument Arg of every call that has it, or only of calls to
// Tool when Tool is set.
type ArgRuleSpec struct {
	Tool string       `json:"tool,omitempty"`
	Arg  string       `json:"arg"`
	Rule gold.ArgRule `json:"rule"`
}

// ParseArgRuleSpec parses "[TOOL:]ARG=RULE", where ARG is an argument name
// or a JSON Pointer to a nested value ("/flights/0/date", "~1" for "/" and
// "~0" for "~" in a token) and RULE is one or more of exact, fuzzy, any,
// optional joined by "+", optionally ending in any_of:JSON-ARRAY (other
// accepted values), e.g. "order_id=fuzzy", "note=any+optional",
// "get_weather:unit=any_of:[\"c\",\"celsius\"]",
// "book_reservation:/flights/0/date=any_of:[\"2024-05-02\"]".
func ParseArgRuleSpec(s string) (ArgRuleSpec, error) {
	target, rule, ok := strings.Cut(s, "=")
	if !ok || target == "" || rule == "" {
		return ArgRuleSpec{}, fmt.Errorf("rule %q: want [TOOL:]ARG=RULE", s)
	}
	var spec ArgRuleSpec
	if gold.IsPointer(target) {
		spec.Arg = target
	} else if tool, arg, ok := strings.Cut(target, ":"); ok {
		spec.Tool, spec.Arg = tool, arg
	} else {
		spec.Arg = target
	}
	if spec.Arg == "" {
		return ArgRuleSpec{}, fmt.Errorf("rule %q: empty argument name", s)
	}
	if gold.IsPointer(spec.Arg) {
		tokens, err := gold.ParsePointer(spec.Arg)
		if err != nil {
			return ArgRuleSpec{}, fmt.Errorf("rule %q: %v", s, err)
		}
		spec.Arg = gold.RuleKey(tokens) // "/name" is the argument name
		if spec.Arg == "" {
			return ArgRuleSpec{}, fmt.Errorf("rule %q: empty argument name", s)
		}
	}
	if before, values, ok := strings.Cut(rule, "any_of:"); ok {
		var anyOf []json.RawMessage
		if err := json.Unmarshal([]byte(values), &anyOf); err != nil || len(anyOf) == 0 {
			return ArgRuleSpec{}, fmt.Errorf("rule %q: any_of needs a non-empty JSON array of values", s)
		}
		spec.Rule.AnyOf = anyOf
		rule = strings.TrimSuffix(before, "+")
	}
	if rule == "" {
		return spec, nil
	}
	for _, part := range strings.Split(rule, "+") {
		switch part {
		case gold.MatchExact, gold.MatchFuzzy, gold.MatchAny:
			if spec.Rule.Match != "" {
				return ArgRuleSpec{}, fmt.Errorf("rule %q: more than one of exact, fuzzy, any", s)
			}
			spec.Rule.Match = part
		case "optional":
			spec.Rule.Optional = true
		default:
			return ArgRuleSpec{}, fmt.Errorf("rule %q: unknown %q (want exact, fuzzy, any, optional or any_of:[...])", s, part)
		}
	}
	return spec, nil
}

// ApplyArgRules attaches rules to the calls of a gold answer's expected and
// acceptable call lists that have the named argument (or, for a JSON
// Pointer, the nested value it points to). A rule that matches no call is
// an error: it names an argument or a path the gold does not have.
func ApplyArgRules(g *Gold, specs []ArgRuleSpec) error {
	for _, spec := range specs {
		matched := 0
		var why error // why a pointer fits none of the calls
		apply := func(calls []gold.ExpectedCall) {
			for i := range calls {
				if spec.Tool != "" && calls[i].Tool != spec.Tool {
					continue
				}
				if !gold.IsPointer(spec.Arg) && !hasArg(calls[i].Args, spec.Arg) {
					continue
				}
				rules := make(map[string]gold.ArgRule, len(calls[i].ArgRules)+1)
				for k, r := range calls[i].ArgRules {
					rules[k] = r
				}
				rules[spec.Arg] = spec.Rule
				trial := gold.ExpectedCall{Tool: calls[i].Tool, Args: calls[i].Args, ArgRules: rules}
				if err := trial.CheckArgRules(); err != nil {
					why = err
					continue
				}
				calls[i].ArgRules = rules
				matched++
			}
		}
		apply(g.Calls)
		for _, alt := range g.Acceptable {
			apply(alt)
		}
		if matched == 0 {
			where := "the expected calls"
			if spec.Tool != "" {
				where = "the calls to " + spec.Tool
			}
			if gold.IsPointer(spec.Arg) {
				if why != nil {
					return fmt.Errorf("rule for %q fits none of %s: %v", spec.Arg, where, why)
				}
				return fmt.Errorf("rule for %q: no call in %s", spec.Arg, where)
			}
			return fmt.Errorf("rule for %q: no argument of that name in %s", spec.Arg, where)
		}
	}
	return nil
}

func hasArg(args json.RawMessage, name string) bool {
	return slices.Contains(argNames(args), name)
}
