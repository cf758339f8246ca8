package render

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/goldtrace/goldtrace/app"
)

// ExportResult reports what export did: a new version, nothing
// changed, or a stored version's files written again.
func ExportResult(w io.Writer, res app.ExportResult, asJSON bool) error {
	if asJSON {
		return JSON(w, res)
	}
	switch {
	case res.Unchanged:
		fmt.Fprintf(w, "dataset %s: nothing changed since v%d (%d items, sha256 %s); nothing written (--force writes a new version anyway)\n",
			res.Name, res.Version, res.Count, res.SHA256[:12])
		return nil
	case res.Rewritten:
		fmt.Fprintf(w, "wrote %s@v%d: %d items, sha256 %s\n", res.Name, res.Version, res.Count, res.SHA256[:12])
	default:
		fmt.Fprintf(w, "exported %s v%d: %d items (%d added, %d removed, %d changed), sha256 %s\n",
			res.Name, res.Version, res.Count, res.Added, res.Removed, res.Changed, res.SHA256[:12])
	}
	for _, p := range res.Files {
		fmt.Fprintf(w, "  %s\n", p)
	}
	return nil
}

// ImportResult is one file's line of what import did.
func ImportResult(w io.Writer, r app.ImportResult) {
	utf := ""
	if r.ReplacedUTF8 > 0 {
		utf = fmt.Sprintf(", %d with invalid UTF-8 replaced by U+FFFD", r.ReplacedUTF8)
	}
	fmt.Fprintf(w, "%s: imported %s, %d already stored, %d invalid skipped, %s created%s\n",
		r.Source, CountNoun(r.Imported, "trace", "traces"), r.Duplicates, r.Skipped, CountNoun(r.Items, "item", "items"), utf)
}

// JSON writes v as indented JSON, with <, > and & as they are.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// IndentJSON writes v as indented JSON, as encoding/json escapes it (<, >
// and & as \u003c …); JSON writes them as they are.
func IndentJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
