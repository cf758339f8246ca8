// Package textwrap fits plain-text output to a terminal's width by breaking
// lines at spaces, never inside a word that fits on a line.
package textwrap

import "strings"

// Width is the width text output is made to fit: a terminal's default 80
// columns.
const Width = 80

// Wrap breaks s at spaces into lines of at most width runes, each
// continuation line starting with indent. A word longer than a whole line
// is cut only where it must be.
func Wrap(s string, width int, indent string) string {
	var b strings.Builder
	ind := len([]rune(indent))
	line := 0
	for i, word := range strings.Split(s, " ") {
		n := len([]rune(word))
		switch {
		case i == 0:
		case line+1+n <= width:
			b.WriteByte(' ')
			line++
		default:
			b.WriteString("\n" + indent)
			line = ind
		}
		for line+n > width && width > line && n > width-ind {
			r := []rune(word)
			cut := width - line
			b.WriteString(string(r[:cut]) + "\n" + indent)
			word, n, line = string(r[cut:]), n-cut, ind
		}
		b.WriteString(word)
		line += n
	}
	return b.String()
}

// FitLines wraps every line of text longer than width (Wrap), continuing
// it under its own indentation plus two spaces.
func FitLines(text string, width int) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if len([]rune(l)) <= width {
			continue
		}
		lead := l[:len(l)-len(strings.TrimLeft(l, " "))]
		lines[i] = lead + Wrap(l[len(lead):], width-len(lead), "  ")
		lines[i] = strings.ReplaceAll(lines[i], "\n", "\n"+lead)
	}
	return strings.Join(lines, "\n")
}
