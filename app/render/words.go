package render

import (
	"fmt"
	"strings"
)

// countNoun is n with its noun in the right number: "1 label", "3 labels".
func CountNoun(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// oneLine folds a multi-line error message onto one line.
func OneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ; ")), " ")
}
