package render

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/goldtrace/goldtrace/app"
)

// Releases writes what assign --release moved from one reviewer to
// another and what it kept (the other reviewer already had the item), as
// text or JSON.
func Releases(w io.Writer, released, kept []app.Release, from, to string, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Released []app.Release `json:"released"`
			Kept     []app.Release `json:"kept"`
		}{nonNilReleases(released), nonNilReleases(kept)})
	}
	for _, r := range released {
		why := ""
		if r.Reason != "" {
			why = fmt.Sprintf(" (skipped: %s)", r.Reason)
		}
		fmt.Fprintf(w, "%s: %s → %s in %s, was %s%s\n", r.Item, r.From, r.To, r.Batch, r.Status, why)
	}
	for _, r := range kept {
		fmt.Fprintf(w, "%s: kept with %s (%s is already assigned it)\n", r.Item, r.From, r.To)
	}
	fmt.Fprintf(w, "released %d item(s) from %s to %s", len(released), from, to)
	if len(kept) > 0 {
		fmt.Fprintf(w, "; %d kept", len(kept))
	}
	_, err := fmt.Fprintln(w)
	return err
}

func nonNilReleases(rs []app.Release) []app.Release {
	if rs == nil {
		return []app.Release{}
	}
	return rs
}
