package review

import (
	"bytes"
	"encoding/json"

	"github.com/goldtrace/goldtrace/gold"
)

// Argument equality for agreement is the scorer's own (gold.ArgsEqual), so that
// agreement and scoring never disagree: numbers compare by value (1 = 1.0 =
// 1e0), booleans are never numbers, object key order is irrelevant, array
// order matters, missing args equal {}, and text that is not JSON equals
// only the same text.

// ArgsEqual reports whether two argument values are equal.
func ArgsEqual(a, b json.RawMessage) bool {
	if len(a) > 0 && bytes.Equal(a, b) {
		return true // the same text is the same value (or the same unparseable text)
	}
	return gold.ArgsEqual(a, b)
}

// DifferingKeys lists, sorted, the top-level argument keys whose values
// differ between a and b (present in one only, or unequal). When either side
// is not a JSON object it returns [WholeArgs]: the whole value differs.
func DifferingKeys(a, b json.RawMessage) []string {
	if ArgsEqual(a, b) {
		return nil
	}
	keys, ok := gold.ArgsDiff(a, b)
	if !ok {
		return []string{WholeArgs}
	}
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

// argNames lists the top-level keys of an argument object (nil when args is
// not a JSON object).
func argNames(args json.RawMessage) []string {
	keys, _ := gold.ArgsDiff(args, json.RawMessage(`{}`))
	return keys
}
