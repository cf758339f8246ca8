package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/app/render"
	"github.com/goldtrace/goldtrace/dataset"
)

// exportOptions are the flags of goldtrace export.
type exportOptions struct {
	app.ExportOptions
	as     string
	asJSON bool
}

func newExportCmd(cli *CLI) *cobra.Command {
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
` + dataset.FormatHelp(),
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
				be, who, err := cli.ActorCtx(cmd.Context())
				if err != nil {
					return err
				}
				res, err := be.Rematerialise(cmd.Context(), who, ref, o.Out, o.Formats)
				if err != nil {
					return err
				}
				return render.ExportResult(cli.Out, res, o.asJSON)
			}
			if err := dataset.ValidName(args[0]); err != nil {
				return err
			}
			// Leads only, always with an identity (recorded as created_by).
			be, who, err := cli.Actor(cmd, o.as)
			if err != nil {
				return err
			}
			eio := app.ExportIO{
				Progress: func(what, unit string) app.Progress { return newMeter(cli, what, unit, 0) },
				Warn:     func(line string) { fmt.Fprintln(cli.Err, line) },
			}
			res, err := be.Export(cmd.Context(), who, args[0], o.ExportOptions, eio)
			if err != nil {
				return err
			}
			return render.ExportResult(cli.Out, res, o.asJSON)
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

// printJSON writes v to stdout as indented JSON.
func printJSON(cli *CLI, v any) error { return render.JSON(cli.Out, v) }
