package main

import "fmt"

// countNoun is n with its noun in the right number: "1 label", "3 labels".
func countNoun(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
