package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	gapp "github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/dataset"
)

// exportOptions are the flags of goldtrace export.
type exportOptions struct {
	gapp.ExportOptions
	as     string
	asJSON bool
}

func newExportCmd(app *App) *cobra.Command {
	var o exportOptions
	cmd := &cobra.Command{
		Use:   "export NAME | NAME@vN",
		Short: "Export the current gold items as the next version of dataset NAME (or re-materialise NAME@vN)",
		Long: `export writes NAME-vN.jsonl (one gold record per line, sorted by id, byte-reproducible)
and NAME-vN.manifest.json into --out, and keeps both in the database. Versions start
at 1 and never change. Exporting when the gold has not changed since the last version
writes nothing unless --force.

export NAME@vN writes the stored files of an existing version again, byte for byte.

--where takes meta.NAME=VALUE (trace metadata), status=agreed|adjudicated or
tool=NAME (expected tool, "(none)" for no call); repeated keys are alternatives,
different keys must all hold.

--format also writes the version in the shape another tool reads (repeatable):
  openai-evals  NAME-vN.openai-evals.jsonl (legacy evals registry rows) and the current
                Evals API's NAME-vN.openai-evals.items.jsonl + NAME-vN.openai-evals.eval.json
  langsmith     NAME-vN.langsmith.jsonl: dataset examples (inputs, outputs, metadata)
  promptfoo     NAME-vN.promptfoo.jsonl tests and a runnable NAME-vN.promptfooconfig.yaml
  inspect       NAME-vN.inspect.jsonl: inspect_ai samples (input, target, metadata)
  deepeval      NAME-vN.deepeval.json: goldens with expected_tools
  bfcl          NAME-vN.bfcl.jsonl questions, NAME-vN.bfcl.possible_answer.jsonl, and
                NAME-vN.bfcl.report.txt listing the rules BFCL cannot express
  hf            NAME-vN.hf/: a Hugging Face dataset folder (README.md card, data/test.jsonl)
  tau2          NAME-vN.tau2.json: τ²-bench tasks (message history up to the decision,
                expected calls as actions with compare_args) and NAME-vN.tau2.report.txt
                listing what τ² cannot express (no-call items, loose rules, alternatives)`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, f := range o.Formats {
				if !dataset.ValidFormat(f) {
					return fmt.Errorf("--format %q: want jsonl, %s", f, strings.Join(dataset.Formats, ", "))
				}
			}
			if ref, isRef, err := dataset.ParseRef(args[0]); isRef {
				if err != nil {
					return err
				}
				for _, flag := range []string{"message", "batch", "where", "as", "force"} {
					if cmd.Flags().Changed(flag) {
						return fmt.Errorf("--%s does not apply to re-materialising %s (it is immutable)", flag, ref)
					}
				}
				be, who, err := app.ActorCtx(cmd.Context())
				if err != nil {
					return err
				}
				res, err := be.Rematerialise(cmd.Context(), who, ref, o.Out, o.Formats)
				if err != nil {
					return err
				}
				return printExportResult(app, res, o.asJSON)
			}
			if err := dataset.ValidName(args[0]); err != nil {
				return err
			}
			// Leads only, always with an identity (recorded as created_by).
			be, who, err := app.Actor(cmd, o.as)
			if err != nil {
				return err
			}
			eio := gapp.ExportIO{
				Progress: func(what, unit string) gapp.Progress { return newMeter(app, what, unit, 0) },
				Warn:     func(line string) { fmt.Fprintln(app.Err, line) },
			}
			res, err := be.Export(cmd.Context(), who, args[0], o.ExportOptions, eio)
			if err != nil {
				return err
			}
			return printExportResult(app, res, o.asJSON)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Out, "out", ".", "directory to write the files into")
	f.StringVarP(&o.Message, "message", "m", "", "what this version is (kept in the manifest)")
	f.StringSliceVar(&o.Batches, "batch", nil, "only items of these batches (repeatable)")
	f.StringArrayVar(&o.Where, "where", nil, "only items with KEY=VALUE: meta.NAME, status, tool (repeatable)")
	f.StringVar(&o.as, "as", "", "the lead exporting (recorded as created_by)")
	f.BoolVar(&o.Force, "force", false, "write a new version even when nothing changed")
	f.BoolVar(&o.AllowPartial, "allow-partial", false, "export although items of the selected batches are still open (being labeled or disputed)")
	f.StringSliceVar(&o.Formats, "format", nil, "also write "+strings.Join(dataset.Formats, "|")+" (repeatable)")
	f.BoolVar(&o.asJSON, "json", false, "print the result as JSON")
	return cmd
}

func printJSON(app *App, v any) error {
	enc := json.NewEncoder(app.Out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printExportResult reports what export did: a new version, nothing
// changed, or a stored version's files written again.
func printExportResult(app *App, res gapp.ExportResult, asJSON bool) error {
	if asJSON {
		return printJSON(app, res)
	}
	switch {
	case res.Unchanged:
		fmt.Fprintf(app.Out, "dataset %s: nothing changed since v%d (%d items, sha256 %s); nothing written (--force writes a new version anyway)\n",
			res.Name, res.Version, res.Count, res.SHA256[:12])
		return nil
	case res.Rewritten:
		fmt.Fprintf(app.Out, "wrote %s@v%d: %d items, sha256 %s\n", res.Name, res.Version, res.Count, res.SHA256[:12])
	default:
		fmt.Fprintf(app.Out, "exported %s v%d: %d items (%d added, %d removed, %d changed), sha256 %s\n",
			res.Name, res.Version, res.Count, res.Added, res.Removed, res.Changed, res.SHA256[:12])
	}
	for _, p := range res.Files {
		fmt.Fprintf(app.Out, "  %s\n", p)
	}
	return nil
}
