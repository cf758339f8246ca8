package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/goldtrace/goldtrace/catalogue"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/internal/fserr"
	"github.com/goldtrace/goldtrace/judge"
	"github.com/goldtrace/goldtrace/trace"
)

type predictFlags struct {
	gold, out, tools string
	client           judgeFlags
}

func newPredictCmd(cli *CLI) *cobra.Command {
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
		RunE: func(cmd *cobra.Command, args []string) error { return runPredict(cmd.Context(), cli, &f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.gold, "gold", "", "gold dataset: NAME@vN or a dataset JSONL file")
	fl.StringVar(&f.client.model, "model", "", "the model to run, pinned to a snapshot (e.g. gpt-4.1-2025-04-14)")
	fl.StringVar(&f.out, "out", "", "predictions JSONL to write")
	fl.StringVar(&f.tools, "tools", "", "tools (JSON array or JSON Lines of {name, description, parameters} or OpenAI's {type, function}, or MCP's tools/list) replacing the gold's by name")
	addClientFlags(fl, &f.client, "")
	_ = cmd.MarkFlagRequired("gold")
	_ = cmd.MarkFlagRequired("model")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

func runPredict(ctx context.Context, cli *CLI, f *predictFlags) error {
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
	preds, st, err := app.Predict(ctx, goldSource(cli), app.PredictRequest{Gold: f.gold, Tools: override,
		NewRunner: func(ctx context.Context) (*judge.Runner, error) { return f.client.runner(ctx, cli, "") },
		Progress:  func(label string) (func(done, total int), func()) { return judgeProgress(cli, label) }})
	doneReading(cli)
	var unused *app.ErrToolUnused
	if errors.As(err, &unused) {
		return fmt.Errorf("--tools %s: %w", f.tools, err)
	}
	if err != nil {
		return err
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
	fmt.Fprintf(cli.Err, "wrote %s: %d predictions; %d requests, %d cache hits, %d tokens\n", f.out, written, st.Requests, st.CacheHits, st.Tokens.Total)
	if st.Partial {
		fmt.Fprintf(cli.Err, "predict: request budget spent (--max-requests %d): %d items not predicted (score scores them as missing)\n", f.client.maxRequests, skipped)
	}
	if errs > 0 {
		fmt.Fprintf(cli.Err, "predict: %d items have no prediction (not in the cache with --offline, or answers without a tool name)\n", errs)
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
	if notRegular(path) {
		return writeInPlace(path, func(w io.Writer) error {
			bw := bufio.NewWriter(w)
			if err := fill(bw); err != nil {
				return err
			}
			return bw.Flush()
		})
	}
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

// readToolsFile reads --tools: any catalogue shape catalogue.Read takes
// (OpenAI or flat tools as a JSON array or JSON Lines, MCP's tools/list).
func readToolsFile(path string) (map[string]trace.Tool, error) {
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
