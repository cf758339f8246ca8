package catalogue

import (
	"fmt"
	"io"
	"strings"
)

// WriteText writes the report for a terminal: the catalogue change, then
// each stale item's findings.
func WriteText(w io.Writer, r Report) error {
	fmt.Fprintf(w, "drift of %s against %s: %d of %d items stale\n", r.Gold, r.Tools, r.Stale, r.Items)
	c := r.Catalogue
	fmt.Fprintf(w, "catalogue: %d removed, %d added, %d changed, %d unchanged\n", len(c.Removed), len(c.Added), len(c.Changed), c.Unchanged)
	for _, l := range []struct {
		what  string
		names []string
	}{{"removed", c.Removed}, {"added", c.Added}, {"changed", c.Changed}} {
		if len(l.names) > 0 {
			fmt.Fprintf(w, "  %s: %s\n", l.what, strings.Join(l.names, ", "))
		}
	}
	for _, it := range r.Details {
		fmt.Fprintf(w, "\n%s\n", it.ID)
		for _, f := range it.Findings {
			fmt.Fprintf(w, "  call %d %s: %s: %s\n", f.Call, f.Tool, f.Kind, f.Detail)
		}
	}
	if r.Stale > 0 {
		_, err := fmt.Fprintf(w, "\nput them back to reviewers: goldtrace sample --stale %s --tools FILE --reviewers a,b\n", r.Gold)
		return err
	}
	return nil
}

// WriteMarkdown writes the report as a markdown section (a CI comment).
func WriteMarkdown(w io.Writer, r Report) error {
	fmt.Fprintf(w, "## Catalogue drift: %s\n\n", mdCell(r.Gold))
	fmt.Fprintf(w, "**%d of %d items stale** against `%s`.\n\n", r.Stale, r.Items, mdCell(r.Tools))
	c := r.Catalogue
	fmt.Fprintf(w, "| catalogue | tools |\n|---|---|\n")
	fmt.Fprintf(w, "| removed | %s |\n| added | %s |\n| changed | %s |\n| unchanged | %d |\n",
		mdList(c.Removed), mdList(c.Added), mdList(c.Changed), c.Unchanged)
	if len(r.Details) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\n| item | call | tool | kind | field | detail |\n|---|---|---|---|---|---|\n")
	for _, it := range r.Details {
		for _, f := range it.Findings {
			fmt.Fprintf(w, "| `%s` | %d | %s | %s | %s | %s |\n", it.ID, f.Call, mdCell(f.Tool), f.Kind, mdCell(f.Field), mdCell(f.Detail))
		}
	}
	return nil
}

func mdList(names []string) string {
	if len(names) == 0 {
		return "-"
	}
	return mdCell(strings.Join(names, ", "))
}

// mdCell escapes text for a markdown table cell.
func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}
