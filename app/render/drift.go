package render

import (
	"io"

	"github.com/goldtrace/goldtrace/catalogue"
)

// Drift writes a drift report as text, json or markdown (catalogue's
// writers).
func Drift(w io.Writer, r catalogue.Report, format string) error {
	switch format {
	case "json":
		return IndentJSON(w, r)
	case "markdown":
		return catalogue.WriteMarkdown(w, r)
	}
	return catalogue.WriteText(w, r)
}
