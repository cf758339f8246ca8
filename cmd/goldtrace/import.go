package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/app/render"
	"github.com/goldtrace/goldtrace/trace"
)

func newImportCmd(cli *CLI) *cobra.Command {
	var format, s3Endpoint string
	var skipInvalid, asJSON bool
	cmd := &cobra.Command{
		Use:   "import FILE...",
		Short: "Import traces (trace JSONL, provider logs, OTel GenAI, OpenInference, LangSmith, Langfuse, Braintrust, MLflow; .gz ok; - is stdin)",
		Long: `Import traces into the store. Each file is imported all or nothing: it is read
once, and written while it is read, in short transactions (reviewers can keep
labeling meanwhile, and may see its traces appear progressively); if the
import fails (an invalid record further on, a full disk, …), what it wrote is
removed again. If it is interrupted (ctrl+c, the terminal or SSH connection
closing, SIGTERM), the unfinished chunk is undone, the chunks written stay, and
traces and status say where it stopped until the same import is run again to
finish it. Without
--skip-invalid the first invalid record aborts that file (nothing from it is
imported) and is reported as FILE:LINE: what. With --skip-invalid the valid
records are imported and every invalid one is reported on stderr. Traces already
stored (same id and content, or same content) are counted, not duplicated. An
empty file is an error.

A Parquet export of Langfuse observations or LangSmith runs (a .parquet file,
a directory of them, a glob, or s3://bucket/prefix) imports each model call as
one trace, and so does Phoenix's database (postgres://…) for each LLM span;
--format langfuse|langsmith|phoenix insists on a layout (see docs/sources.md).

Formats (--format auto detects them): trace (goldtrace's own JSONL), openai
(chat completions), openai-responses, anthropic (Messages), gemini
(generateContent), bedrock (Converse, Nova, Agents traces) — as logged
request/response pairs, cassettes or bare bodies, streamed bodies (server-sent
events, AWS event streams) included —, otlp (OTel GenAI spans in every
generation of the conventions, span events, OTLP logs), openinference,
langsmith (runs), langfuse (traces with observations), braintrust (spans) and
mlflow (traces). Text that is not UTF-8 is replaced and counted; a trace id
that is not UTF-8 is an invalid record.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			be, who, err := cli.ActorCtx(cmd.Context())
			if err != nil {
				return err
			}
			rep, err := be.Import(cmd.Context(), who, args, app.ImportOptions{
				Format: format, SkipInvalid: skipInvalid, Stdin: cli.In, S3Endpoint: s3Endpoint,
				OnInvalid: func(file string, e *trace.RecordError) {
					fmt.Fprintln(cli.Err, app.FormatInputError(file, e.Line, e.Err.Error()))
				},
				Progress: func(file string) (func(app.ImportProgress), func()) {
					meter := render.NewImportMeter(cli.Err, file, IsTerminal(cli.Err), time.Now)
					return meter.Update, meter.Done
				},
			})
			if rep.Files == nil { // refused before any file was read
				return err
			}
			for _, f := range rep.Failed[:max(len(rep.Failed)-1, 0)] {
				fmt.Fprintln(cli.Err, f) // the last one is the command's error
			}
			if asJSON {
				if werr := render.IndentJSON(cli.Out, rep); werr != nil {
					return werr
				}
			} else {
				for _, r := range rep.Files {
					render.ImportResult(cli.Out, r)
				}
				if len(rep.Files) > 1 {
					render.ImportResult(cli.Out, rep.Total)
				}
			}
			return err
		},
	}
	cmd.Flags().StringVar(&format, "format", trace.FormatAuto, strings.Join(app.InputFormats, "|"))
	cmd.Flags().StringVar(&s3Endpoint, "s3-endpoint", "", "`URL` of an S3-compatible service for s3:// sources (MinIO, R2, GCS); default AWS")
	cmd.Flags().BoolVar(&skipInvalid, "skip-invalid", false, "import the valid records and report each invalid one")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON")
	return cmd
}
