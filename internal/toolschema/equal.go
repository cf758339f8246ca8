package toolschema

import (
	"strconv"
	"strings"
)

// equal is JSON equality: numbers by value (1 and 1.0 are equal), objects
// whatever their key order.
func equal(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equal(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case nil, bool, string:
		return a == b
	}
	ra, rb := toRat(a), toRat(b)
	return ra != nil && rb != nil && ra.Cmp(rb) == 0
}

// duplicate returns the first pair of equal entries (i < j), or -1, -1.
// Entries are grouped by a canonical text, so a long list is not compared
// pair by pair.
func duplicate(arr []any) (int, int) {
	first := make(map[string]int, len(arr))
	var b strings.Builder
	for j, v := range arr {
		b.Reset()
		canonical(&b, v)
		if i, ok := first[b.String()]; ok {
			return i, j
		}
		first[b.String()] = j
	}
	return -1, -1
}

// canonical writes a text that is the same for equal values and differs
// for unequal ones.
func canonical(b *strings.Builder, v any) {
	switch x := v.(type) {
	case map[string]any:
		b.WriteByte('{')
		for _, k := range sortedKeys(x) {
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			canonical(b, x[k])
			b.WriteByte(',')
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for _, e := range x {
			canonical(b, e)
			b.WriteByte(',')
		}
		b.WriteByte(']')
	case string:
		b.WriteString(strconv.Quote(x))
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	default:
		if r := toRat(v); r != nil {
			b.WriteString("#" + r.RatString())
		}
	}
}

// hasDuplicate reports whether two entries of arr are equal.
func hasDuplicate(arr []any) bool {
	_, j := duplicate(arr)
	return j >= 0
}
