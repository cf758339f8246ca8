package tui

import "strings"

// oneLine folds text onto one line (status messages, list entries).
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// firstLine is the first non-empty line of s.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}
