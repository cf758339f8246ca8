package app

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/goldtrace/goldtrace/catalogue"
	"github.com/goldtrace/goldtrace/internal/fserr"
	"github.com/goldtrace/goldtrace/internal/outfile"
	"github.com/goldtrace/goldtrace/judge"
	"github.com/goldtrace/goldtrace/trace"
)

// What goldtrace predict reads beside the gold (--tools) and the
// predictions file it writes for goldtrace score --pred.

// ReadToolOverrides reads --tools: any catalogue shape catalogue.Read takes
// (OpenAI or flat tools as a JSON array or JSON Lines, MCP's tools/list),
// by name.
func ReadToolOverrides(path string) (map[string]trace.Tool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--tools: %w", fserr.Bare(err))
	}
	defer f.Close()
	tools, err := catalogue.Read(f, path)
	if err != nil {
		return nil, fmt.Errorf("--tools %w", err)
	}
	out := make(map[string]trace.Tool, len(tools))
	for _, t := range tools {
		out[t.Name] = t
	}
	return out, nil
}

// PredictionCounts are what a predictions file holds of a run: lines
// written, items without an answer (an error), items not sent (the
// request budget ran out).
type PredictionCounts struct{ Written, Errors, Skipped int }

// WritePredictions writes preds to path ("-": stdout) as goldtrace score
// --pred reads them, all or nothing; items without an answer are left out
// and counted.
func WritePredictions(path string, stdout io.Writer, preds []judge.Prediction) (PredictionCounts, error) {
	var n PredictionCounts
	err := outfile.Write(path, stdout, func(w io.Writer) error {
		for _, p := range preds {
			switch {
			case p.Skipped:
				n.Skipped++
				continue
			case p.Err != nil:
				n.Errors++
				continue
			}
			if err := writePredictionLine(w, p); err != nil {
				return err
			}
			n.Written++
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("write %s: %w", path, err)
	}
	return n, nil
}

// writePredictionLine writes one line of the predictions format: arguments
// as the JSON object the model produced, or its verbatim text as a string
// when it was not JSON.
func writePredictionLine(w io.Writer, p judge.Prediction) error {
	type call struct {
		ID        string          `json:"id,omitempty"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	line := struct {
		ID        string `json:"id"`
		ToolCalls []call `json:"tool_calls"`
	}{ID: p.ID, ToolCalls: []call{}}
	for _, c := range p.Calls {
		line.ToolCalls = append(line.ToolCalls, call{ID: c.ID, Name: c.Name, Arguments: c.Arguments})
	}
	b, err := json.Marshal(line)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ReadCatalogue reads a tool catalogue (--tools: a file, "-" for stdin,
// .gz accepted) in any shape catalogue.Read takes (drift, sample --stale).
func ReadCatalogue(path string, stdin io.Reader) ([]trace.Tool, error) {
	in, closeIn, err := OpenInput(path, stdin)
	if err != nil {
		return nil, fmt.Errorf("--tools %w", err)
	}
	defer closeIn()
	return catalogue.Read(in, path)
}
