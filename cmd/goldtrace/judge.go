package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/app/render"
	"github.com/goldtrace/goldtrace/judge"
)

func newJudgeCmd(cli *CLI) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "judge",
		Short: "The LLM judges: their prompts, and their calibration against the human gold",
		Long: `goldtrace's optional LLM judges grade what rules cannot decide (see
docs/judge.md): args (arguments against the reference label: 1, 0.5 or 0),
selection (correct or incorrect from the conversation and the tools alone) and
quality (the share of yes among several yes/no judgments). score --judge adds
them beside the deterministic scores; judge calibrate measures one against the
adjudicated gold.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newJudgePromptCmd(cli), newJudgeCalibrateCmd(cli))
	return cmd
}

func newJudgePromptCmd(cli *CLI) *cobra.Command {
	return &cobra.Command{
		Use:   "prompt KIND",
		Short: "Print the built-in prompt template of a judge (args, selection or quality)",
		Long: `prompt prints the Go text/template a judge sends, to copy, edit and pass back
with --judge-template FILE. Fields: ` + judge.Fields + `. The sha256 of
the template in effect is recorded in every report.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			kind, err := judge.ParseKind(args[0])
			if err != nil {
				return err
			}
			t, err := judge.DefaultTemplate(kind)
			if err != nil {
				return err
			}
			_, err = io.WriteString(cli.Out, t.Text)
			return err
		},
	}
}

type calibrateFlags struct {
	gold, pred string
	format     string
	asJSON     bool
	judge      judgeFlags
}

func newJudgeCalibrateCmd(cli *CLI) *cobra.Command {
	var f calibrateFlags
	cmd := &cobra.Command{
		Use:   "calibrate",
		Short: "Run a judge on calls the human gold already settles and measure how often it agrees",
		Long: `calibrate runs the judge on every item whose correctness the adjudicated gold
settles — the production model's observed calls, or --pred — and compares its
verdict (score >= --judge-threshold) with the human one (score's "correct":
the deterministic verdict against the gold with its rules and acceptable
alternatives): agreement, Cohen's kappa, the 2×2 confusion, per tool, and
every item. The run is recorded for the lead's dashboard.`,
		Example: `  goldtrace judge calibrate --gold support@v3 --judge args --judge-model gpt-4o-2024-08-06
  goldtrace judge calibrate --gold support-v3.jsonl --pred run.jsonl --judge selection --judge-model qwen2.5-7b-instruct-v1 --judge-url http://127.0.0.1:8000/v1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runCalibrate(cmd.Context(), cli, &f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.gold, "gold", "", "gold dataset: NAME@vN or a dataset JSONL file")
	fl.StringVar(&f.pred, "pred", "", "predictions JSONL (default: the gold records' observed_calls)")
	fl.StringVar(&f.format, "format", "text", "text or json")
	fl.BoolVar(&f.asJSON, "json", false, "same as --format json")
	addJudgeFlags(fl, &f.judge, true)
	_ = cmd.MarkFlagRequired("gold")
	_ = cmd.MarkFlagRequired("judge")
	return cmd
}

func runCalibrate(ctx context.Context, cli *CLI, f *calibrateFlags) error {
	if f.asJSON {
		f.format = "json"
	}
	if f.format != "text" && f.format != "json" {
		return fmt.Errorf("--format must be text or json, not %q", f.format)
	}
	run, err := f.judge.JudgeRun(judgeIO(cli))
	if err != nil {
		return err
	}
	rep, err := app.Calibrate(ctx, goldSource(cli), f.gold, f.pred, run)
	doneReading(cli)
	if err != nil {
		return err
	}
	// The summary (without items) is kept for the dashboard.
	be, who, err := cli.ActorCtx(ctx)
	if err != nil {
		return err
	}
	if err := be.RecordCalibration(ctx, who, app.CalibrationRunOf(rep)); err != nil {
		return err
	}
	if f.format == "json" {
		return printJSON(cli, rep)
	}
	return render.Calibration(cli.Out, rep)
}
