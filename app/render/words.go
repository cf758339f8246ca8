package render

import (
	"fmt"
	"strings"

	"github.com/goldtrace/goldtrace/review"
)

// CountNoun is n with its noun in the right number: "1 label", "3 labels".
func CountNoun(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// OneLine folds a multi-line error message onto one line.
func OneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ; ")), " ")
}

// GoldSummary is a one-line view of a gold answer's calls.
func GoldSummary(g review.Gold) string {
	if g.Decision == review.DecisionNoCall {
		return "no tool call"
	}
	var parts []string
	for _, c := range g.Calls {
		parts = append(parts, c.Tool+string(c.Args))
	}
	s := strings.Join(parts, ", ")
	if n := len(g.Acceptable); n > 0 {
		s += fmt.Sprintf(" (+%d acceptable)", n)
	}
	return s
}
