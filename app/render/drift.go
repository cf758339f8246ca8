package render

import (
	"encoding/json"
	"io"

	"github.com/goldtrace/goldtrace/catalogue"
)

// Drift writes a drift report as text, json or markdown (catalogue's
// writers).
func Drift(w io.Writer, r catalogue.Report, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case "markdown":
		return catalogue.WriteMarkdown(w, r)
	}
	return catalogue.WriteText(w, r)
}
