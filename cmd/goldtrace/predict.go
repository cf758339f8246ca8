package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
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
	fl.StringVar(&f.client.Model, "model", "", "the model to run, pinned to a snapshot (e.g. gpt-4.1-2025-04-14)")
	fl.StringVar(&f.out, "out", "", "predictions JSONL to write")
	fl.StringVar(&f.tools, "tools", "", "tools (JSON array or JSON Lines of {name, description, parameters} or OpenAI's {type, function}, or MCP's tools/list) replacing the gold's by name")
	addClientFlags(fl, &f.client, "")
	_ = cmd.MarkFlagRequired("gold")
	_ = cmd.MarkFlagRequired("model")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

func runPredict(ctx context.Context, cli *CLI, f *predictFlags) error {
	if err := f.client.CheckClient(""); err != nil {
		return err
	}
	var override map[string]trace.Tool
	if f.tools != "" {
		var err error
		if override, err = app.ReadToolOverrides(f.tools); err != nil {
			return err
		}
	}
	preds, st, err := app.Predict(ctx, goldSource(cli), app.PredictRequest{Gold: f.gold, Tools: override,
		NewRunner: func(ctx context.Context) (*judge.Runner, error) { return f.client.Runner(ctx, "", judgeIO(cli)) },
		Progress:  judgeIO(cli).Progress})
	doneReading(cli)
	var unused *app.ErrToolUnused
	if errors.As(err, &unused) {
		return fmt.Errorf("--tools %s: %w", f.tools, err)
	}
	if err != nil {
		return err
	}
	n, err := app.WritePredictions(f.out, cli.Out, preds)
	if err != nil {
		return err
	}
	fmt.Fprintf(cli.Err, "wrote %s: %d predictions; %d requests, %d cache hits, %d tokens\n", f.out, n.Written, st.Requests, st.CacheHits, st.Tokens.Total)
	if st.Partial {
		fmt.Fprintf(cli.Err, "predict: request budget spent (--max-requests %d): %d items not predicted (score scores them as missing)\n", f.client.MaxRequests, n.Skipped)
	}
	if n.Errors > 0 {
		fmt.Fprintf(cli.Err, "predict: %d items have no prediction (not in the cache with --offline, or answers without a tool name)\n", n.Errors)
	}
	return nil
}
