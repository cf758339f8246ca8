package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/source"
)

// BatchSources says, under the table, where each batch sampled from a
// source (a Parquet export, an object store, Phoenix's database) came from.
func BatchSources(w io.Writer, batches []app.BatchSummary) {
	for _, b := range batches {
		var p struct {
			SourceInfo *source.Info `json:"source_info"`
		}
		if json.Unmarshal(b.Params, &p) != nil || p.SourceInfo == nil {
			continue
		}
		i := p.SourceInfo
		versions := make([]string, 0, 3)
		for _, f := range i.Files[:min(3, len(i.Files))] {
			versions = append(versions, f.Version)
		}
		if len(i.Files) > 3 {
			versions = append(versions, fmt.Sprintf("+%d more in batches --json", len(i.Files)-3))
		}
		fmt.Fprintf(w, "%s: sampled from %s (%s, %d files, %d rows, %d model calls; %s)\n", b.Name, i.URI, i.Layout,
			len(i.Files), i.Rows, i.Calls, strings.Join(versions, ", "))
	}
}
