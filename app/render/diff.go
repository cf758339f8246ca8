package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/goldtrace/goldtrace/app"
)

// Diff writes what changed between two dataset versions: the ids added,
// removed and changed, and for each change the fields, values clipped.
func Diff(w io.Writer, res app.DiffResult) {
	fmt.Fprintf(w, "%s → %s: %d added, %d removed, %d changed\n", res.From, res.To, len(res.Added), len(res.Removed), len(res.Changed))
	for _, id := range res.Added {
		fmt.Fprintf(w, "+ %s\n", id)
	}
	for _, id := range res.Removed {
		fmt.Fprintf(w, "- %s\n", id)
	}
	for _, c := range res.Changed {
		fmt.Fprintf(w, "~ %s (%s)\n", c.ID, strings.Join(c.Kinds, ", "))
		for _, f := range c.Fields {
			switch {
			case f.From == nil:
				fmt.Fprintf(w, "    %s: added %s\n", f.Path, clipValue(f.To))
			case f.To == nil:
				fmt.Fprintf(w, "    %s: removed %s\n", f.Path, clipValue(f.From))
			default:
				fmt.Fprintf(w, "    %s: %s → %s\n", f.Path, clipValue(f.From), clipValue(f.To))
			}
		}
	}
}

// clipValue shortens a JSON value for one line of text.
func clipValue(b []byte) string {
	s := string(b)
	if r := []rune(s); len(r) > 100 {
		return string(r[:97]) + "..."
	}
	return s
}
