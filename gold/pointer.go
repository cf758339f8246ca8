package gold

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Rules on nested values: an arg_rules key that starts with "/" is an RFC
// 6901 JSON Pointer into the call's arguments ("/body/mode",
// "/flights/0/date"; "~1" stands for "/" and "~0" for "~" inside a token).
// A plain key is a top-level argument; "/name" is the same as "name".

// IsPointer reports whether an arg_rules key is a JSON Pointer.
func IsPointer(key string) bool { return strings.HasPrefix(key, "/") }

// ParsePointer splits a JSON Pointer into its unescaped reference tokens.
// It fails on a pointer that does not start with "/" and on a "~" not
// followed by 0 or 1.
func ParsePointer(ptr string) ([]string, error) {
	if !IsPointer(ptr) {
		return nil, fmt.Errorf("JSON pointer %q does not start with /", ptr)
	}
	parts := strings.Split(ptr[1:], "/")
	for i, p := range parts {
		if !strings.Contains(p, "~") {
			continue
		}
		var b strings.Builder
		for j := 0; j < len(p); j++ {
			if p[j] != '~' {
				b.WriteByte(p[j])
				continue
			}
			if j+1 == len(p) || (p[j+1] != '0' && p[j+1] != '1') {
				return nil, fmt.Errorf("JSON pointer %q: ~ must be followed by 0 or 1", ptr)
			}
			if p[j+1] == '0' {
				b.WriteByte('~')
			} else {
				b.WriteByte('/')
			}
			j++
		}
		parts[i] = b.String()
	}
	return parts, nil
}

// Pointer builds a JSON Pointer from reference tokens, escaping "~" and "/".
func Pointer(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return b.String()
}

// RuleKey is the canonical arg_rules key of a rule for the value at tokens:
// the plain argument name for a top-level argument, a JSON Pointer below.
func RuleKey(tokens []string) string {
	if len(tokens) == 1 {
		return tokens[0]
	}
	return Pointer(tokens...)
}

// DisplayPath renders a rule key for messages: order_id, body.mode,
// flights[0].date.
func DisplayPath(key string) string {
	if !IsPointer(key) {
		return key
	}
	tokens, err := ParsePointer(key)
	if err != nil {
		return key
	}
	return displayTokens(tokens)
}

func displayTokens(tokens []string) string {
	var b strings.Builder
	for i, t := range tokens {
		if _, err := strconv.Atoi(t); err == nil && i > 0 {
			b.WriteString("[" + t + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(t)
	}
	return b.String()
}

// CheckArgRules reports the first rule of the call that cannot apply: a
// malformed pointer, a pointer to a path the expected args do not have, or
// two keys naming the same value. The last token of a pointer may name an
// object member the expected args omit when the rule is optional or lists
// any_of values (as a plain key may); every container above it must exist,
// and an array index must be in range.
//
// It is long because it walks each pointer's tokens through the decoded
// args with a case per container kind.
func (c *ExpectedCall) CheckArgRules() error {
	if len(c.ArgRules) == 0 {
		return nil
	}
	nested := false
	for k := range c.ArgRules {
		if IsPointer(k) {
			nested = true
			break
		}
	}
	if !nested {
		return nil // plain keys: a rule may name an argument the gold omits
	}
	keys := make([]string, 0, len(c.ArgRules))
	for k := range c.ArgRules {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var args any
	if len(c.Args) > 0 {
		dec := json.NewDecoder(strings.NewReader(string(c.Args)))
		dec.UseNumber()
		if err := dec.Decode(&args); err != nil {
			return fmt.Errorf("%s: args are not JSON: %v", c.Tool, err)
		}
	}
	seen := map[string]string{}
	for _, k := range keys {
		if k == "" {
			return fmt.Errorf("%s: arg_rules has an empty key", c.Tool)
		}
		if !IsPointer(k) {
			if prev := seen[k]; prev != "" {
				return fmt.Errorf("%s: arg_rules %q and %q name the same value", c.Tool, prev, k)
			}
			seen[k] = k
			continue
		}
		tokens, err := ParsePointer(k)
		if err != nil {
			return fmt.Errorf("%s: arg_rules %q: %v", c.Tool, k, err)
		}
		if canon := RuleKey(tokens); seen[canon] != "" {
			return fmt.Errorf("%s: arg_rules %q and %q name the same value", c.Tool, seen[canon], k)
		} else {
			seen[canon] = k
		}
		if len(tokens) == 1 {
			continue // a top-level argument: same as the plain key
		}
		rule := c.ArgRules[k]
		cur := args
		for i, t := range tokens {
			last := i == len(tokens)-1
			switch v := cur.(type) {
			case map[string]any:
				next, ok := v[t]
				if !ok {
					if last && (rule.Optional || len(rule.AnyOf) > 0) {
						break
					}
					return fmt.Errorf("%s: arg_rules %q points to %s, which the expected args do not have", c.Tool, k, displayTokens(tokens[:i+1]))
				}
				cur = next
			case []any:
				n, err := strconv.Atoi(t)
				if err != nil || n < 0 || n >= len(v) || (len(t) > 1 && t[0] == '0') {
					return fmt.Errorf("%s: arg_rules %q points to %s, which the expected args do not have (an array of %d)", c.Tool, k, displayTokens(tokens[:i+1]), len(v))
				}
				cur = v[n]
			default:
				if i == 0 {
					return fmt.Errorf("%s: arg_rules %q points into args that are not an object", c.Tool, k)
				}
				return fmt.Errorf("%s: arg_rules %q points into %s, which is not an object or array in the expected args", c.Tool, k, displayTokens(tokens[:i]))
			}
		}
	}
	return nil
}
