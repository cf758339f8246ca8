// Package suggest finds what a user probably meant by a mistyped name: a
// flag, a user, a choice.
package suggest

import "strings"

// Closest returns the candidate nearest to word when it is near enough to
// be a slip (an edit distance of at most a third of the word, at least 1,
// at most 2; or word a prefix of exactly one candidate), else "".
func Closest(word string, candidates []string) string {
	best, bestD := "", 0
	prefixOf := ""
	prefixes := 0
	for _, c := range candidates {
		if c == word {
			return ""
		}
		if len(word) >= 2 && strings.HasPrefix(c, word) {
			prefixes++
			prefixOf = c
		}
		d := Distance(strings.ToLower(word), strings.ToLower(c))
		if best == "" || d < bestD {
			best, bestD = c, d
		}
	}
	limit := min(max(len([]rune(word))/3, 1), 2)
	switch {
	case best != "" && bestD <= limit:
		return best
	case prefixes == 1:
		return prefixOf
	}
	return ""
}

// Distance is the Damerau–Levenshtein (optimal string alignment) distance
// between a and b: insertions, deletions, substitutions and swaps of two
// neighbours cost one each.
func Distance(a, b string) int {
	x, y := []rune(a), []rune(b)
	prev2 := make([]int, len(y)+1)
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(y)]
}
