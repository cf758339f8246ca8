package review

import (
	"bytes"
	"encoding/json"
	"math/big"
	"sort"
)

// Argument equality for agreement. It follows DESIGN.md's scoring semantics:
// numbers compare by value (1 = 1.0 = 1e0), booleans are never numbers, object
// key order is irrelevant, array order matters. Arguments that are not valid
// JSON compare by their bytes, so two reviewers who typed the same unparseable
// text still agree.

// decodeArgs parses one argument value with numbers kept exact; ok is false
// when raw is not exactly one JSON value.
func decodeArgs(raw json.RawMessage) (v any, ok bool) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return map[string]any{}, true
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, false
	}
	if _, err := dec.Token(); err == nil {
		return nil, false
	}
	return v, true
}

// ArgsEqual reports whether two argument values are equal under the rules
// above. Empty (missing) args equal {}.
func ArgsEqual(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) && len(a) > 0 {
		return true // the same text is the same value (or the same unparseable text)
	}
	va, okA := decodeArgs(a)
	vb, okB := decodeArgs(b)
	if !okA || !okB {
		return okA == okB && bytes.Equal(bytes.TrimSpace(a), bytes.TrimSpace(b))
	}
	return valuesEqual(va, vb)
}

// valuesEqual compares two values decoded with UseNumber.
func valuesEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case json.Number:
		y, ok := b.(json.Number)
		return ok && numbersEqual(x, y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !valuesEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !valuesEqual(xv, yv) {
				return false
			}
		}
		return true
	}
	return false
}

// numbersEqual compares JSON numbers exactly by value.
func numbersEqual(a, b json.Number) bool {
	if a == b {
		return true
	}
	ra, okA := new(big.Rat).SetString(string(a))
	rb, okB := new(big.Rat).SetString(string(b))
	return okA && okB && ra.Cmp(rb) == 0
}

// DifferingKeys lists, sorted, the top-level argument keys whose values
// differ between a and b (present in one only, or unequal). When either side
// is not a JSON object it returns ["(args)"]: the whole value differs.
func DifferingKeys(a, b json.RawMessage) []string {
	va, okA := decodeArgs(a)
	vb, okB := decodeArgs(b)
	ma, isA := va.(map[string]any)
	mb, isB := vb.(map[string]any)
	if !okA || !okB || !isA || !isB {
		if ArgsEqual(a, b) {
			return nil
		}
		return []string{WholeArgs}
	}
	var keys []string
	for k, av := range ma {
		if bv, ok := mb[k]; !ok || !valuesEqual(av, bv) {
			keys = append(keys, k)
		}
	}
	for k := range mb {
		if _, ok := ma[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// WholeArgs stands for "the whole argument value" in a list of differing keys
// when the arguments are not JSON objects.
const WholeArgs = "(args)"

// CallsEqual reports whether two labels' call lists pair exactly: the same
// tools in the same order with equal arguments.
func CallsEqual(a, b []LabelCall) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Tool != b[i].Tool || !ArgsEqual(a[i].Args, b[i].Args) {
			return false
		}
	}
	return true
}
