package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/internal/fserr"
	"github.com/goldtrace/goldtrace/judge"
	"github.com/goldtrace/goldtrace/trace"
)

type predictFlags struct {
	gold, out, tools string
	client           judgeFlags
}

func newPredictCmd(app *App) *cobra.Command {
	var f predictFlags
	cmd := &cobra.Command{
		Use:   "predict",
		Short: "Run a model on a gold dataset's inputs and write the predictions file score reads",
		Long: `predict sends each gold item's input — its conversation and available tools, in
the chat-completions tools format — to an OpenAI-compatible endpoint and writes
the tool calls the model makes (or none) as a predictions file for
goldtrace score --pred. Answers are cached in the project database, so a
rerun sends nothing. --tools FILE replaces tool descriptions and schemas by
name for a what-if run: tighten one description, predict again, and compare
the two runs with score --baseline.`,
		Example: `  goldtrace predict --gold support@v3 --model gpt-4.1-2025-04-14 --out run.jsonl
  goldtrace predict --gold support@v3 --model gpt-4.1-2025-04-14 --tools tighter.json --out whatif.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runPredict(cmd.Context(), app, &f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.gold, "gold", "", "gold dataset: NAME@vN or a dataset JSONL file")
	fl.StringVar(&f.client.model, "model", "", "the model to run, pinned to a snapshot (e.g. gpt-4.1-2025-04-14)")
	fl.StringVar(&f.out, "out", "", "predictions JSONL to write")
	fl.StringVar(&f.tools, "tools", "", "tools (JSON array or JSON Lines, {name, description, parameters} or OpenAI's {type, function}) replacing the gold's by name")
	addClientFlags(fl, &f.client, "")
	_ = cmd.MarkFlagRequired("gold")
	_ = cmd.MarkFlagRequired("model")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

func runPredict(ctx context.Context, app *App, f *predictFlags) error {
	if err := f.client.checkCommon(""); err != nil {
		return err
	}
	var override map[string]trace.Tool
	if f.tools != "" {
		var err error
		if override, err = readToolsFile(f.tools); err != nil {
			return err
		}
	}
	recs, err := loadGold(ctx, app, f.gold, 0)
	if err != nil {
		return fmt.Errorf("read gold: %w", err)
	}
	if len(recs) == 0 {
		return fmt.Errorf("read gold: %s has no records", f.gold)
	}
	gc, err := loadGoldContext(ctx, app, f.gold)
	if err != nil {
		return fmt.Errorf("read gold: %w", err)
	}
	used := map[string]bool{}
	inputs := make([]judge.PredictInput, len(recs))
	for i := range recs {
		tools := recs[i].AvailableTools
		if override != nil {
			tools = append([]trace.Tool(nil), tools...)
			for k, t := range tools {
				if o, ok := override[t.Name]; ok {
					tools[k] = o
					used[t.Name] = true
				}
			}
		}
		inputs[i] = judge.PredictInput{ID: recs[i].ID, Messages: gc[recs[i].ID].Messages, Tools: tools}
	}
	for name := range override {
		if !used[name] {
			return fmt.Errorf("--tools %s: tool %q is not available in any item of %s", f.tools, name, f.gold)
		}
	}
	recs = nil
	runner, err := f.client.runner(ctx, app, "")
	if err != nil {
		return judgeError(err)
	}
	update, done := judgeProgress(app, "predicting")
	runner.Progress = update
	preds, st, err := judge.Predict(ctx, runner, inputs)
	done()
	if err != nil {
		if ctx.Err() != nil {
			return errInterrupted
		}
		return judgeError(err)
	}
	written, errs, skipped := 0, 0, 0
	err = writeFileAtomic(f.out, func(w *bufio.Writer) error {
		for _, p := range preds {
			switch {
			case p.Skipped:
				skipped++
				continue
			case p.Err != nil:
				errs++
				continue
			}
			if err := writePredictionLine(w, p); err != nil {
				return err
			}
			written++
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("write %s: %w", f.out, err)
	}
	fmt.Fprintf(app.Err, "wrote %s: %d predictions; %d requests, %d cache hits, %d tokens\n", f.out, written, st.Requests, st.CacheHits, st.Tokens.Total)
	if st.Partial {
		fmt.Fprintf(app.Err, "predict: request budget spent (--max-requests %d): %d items not predicted (score scores them as missing)\n", f.client.maxRequests, skipped)
	}
	if errs > 0 {
		fmt.Fprintf(app.Err, "predict: %d items have no prediction (not in the cache with --offline, or answers without a tool name)\n", errs)
	}
	return nil
}

// writePredictionLine writes one line of the predictions format: arguments
// as the JSON object the model produced, or its verbatim text as a string
// when it was not JSON.
func writePredictionLine(w *bufio.Writer, p judge.Prediction) error {
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
	w.Write(b)
	return w.WriteByte('\n')
}

// writeFileAtomic writes path through a temp file renamed into place, so a
// failed run leaves no half-written file.
func writeFileAtomic(path string, fill func(w *bufio.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".goldtrace-predict-*")
	if err != nil {
		return fserr.Bare(err)
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	if err := fill(w); err != nil {
		tmp.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// readToolsFile reads --tools: a JSON array, or one tool per line.
func readToolsFile(path string) (map[string]trace.Tool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--tools: %w", fserr.Bare(err))
	}
	var raws []json.RawMessage
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &raws); err != nil {
			return nil, fmt.Errorf("--tools %s: not a JSON array of tools: %v", path, err)
		}
	} else {
		for i, line := range strings.Split(string(data), "\n") {
			if strings.TrimSpace(line) == "" {
				continue
			}
			if !json.Valid([]byte(line)) {
				return nil, fmt.Errorf("--tools %s:%d: not JSON", path, i+1)
			}
			raws = append(raws, json.RawMessage(line))
		}
	}
	out := map[string]trace.Tool{}
	for i, raw := range raws {
		var t struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
			Function    *struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, fmt.Errorf("--tools %s: tool %d: %v", path, i+1, err)
		}
		if t.Function != nil {
			t.Name, t.Description, t.Parameters = t.Function.Name, t.Function.Description, t.Function.Parameters
		}
		if t.Name == "" {
			return nil, fmt.Errorf("--tools %s: tool %d has no name", path, i+1)
		}
		if p := bytes.TrimSpace(t.Parameters); len(p) > 0 && string(p) != "null" && p[0] != '{' {
			return nil, fmt.Errorf("--tools %s: tool %s: parameters must be a JSON Schema object", path, t.Name)
		}
		if _, dup := out[t.Name]; dup {
			return nil, fmt.Errorf("--tools %s: tool %s given twice", path, t.Name)
		}
		params := t.Parameters
		if len(params) > 0 {
			if c, err := trace.Canonical(params); err == nil {
				params = c
			}
		}
		out[t.Name] = trace.Tool{Name: t.Name, Description: t.Description, Parameters: params}
	}
	if len(out) == 0 {
		return nil, errors.New("--tools " + path + ": no tools")
	}
	return out, nil
}
