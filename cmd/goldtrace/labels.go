package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/app/render"
	"github.com/goldtrace/goldtrace/internal/outfile"
	"github.com/goldtrace/goldtrace/review"
)

func newLabelsCmd(cli *CLI) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "labels",
		Short: "Labels as JSON Lines: export them, or import labels made elsewhere",
	}
	cmd.AddCommand(newLabelsExportCmd(cli), newLabelsImportCmd(cli))
	return cmd
}

func newLabelsExportCmd(cli *CLI) *cobra.Command {
	var f app.LabelFilter
	var out, as string
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write submitted labels as JSON Lines (stdout, or --out FILE): a reviewer's own, or every reviewer's for a lead",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			be, who, err := cli.Actor(cmd, as)
			if err != nil {
				return err
			}
			n := 0
			err = outfile.Write(out, cli.Out, func(w io.Writer) error {
				enc := json.NewEncoder(w)
				return be.ExportLabels(cmd.Context(), who, f, func(l review.Label) error {
					if l.Calls == nil {
						l.Calls = []review.LabelCall{}
					}
					n++
					return enc.Encode(l)
				})
			})
			if err != nil {
				return fmt.Errorf("export labels: %w", err)
			}
			if out != "" && out != "-" && !outfile.NotRegular(out) {
				fmt.Fprintf(cli.Err, "exported %s to %s\n", render.CountNoun(n, "label", "labels"), out)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&f.Batch, "batch", "", "only labels of this batch")
	cmd.Flags().StringVar(&f.Reviewer, "reviewer", "", "only labels by this reviewer (a lead)")
	cmd.Flags().StringVar(&out, "out", "", "write to FILE instead of stdout")
	cmd.Flags().StringVar(&as, "as", "", "who is exporting: a reviewer gets their own labels, a lead everyone's")
	return cmd
}

func newLabelsImportCmd(cli *CLI) *cobra.Command {
	var o app.LabelsImportOptions
	var asJSON bool
	var as string
	cmd := &cobra.Command{
		Use:   "import FILE",
		Short: "Submit your labels from a JSON Lines file, checked exactly like the label screen (atomic unless --skip-invalid)",
		Long: `labels import submits labels made elsewhere, one JSON object per line:

  {"item":"it_3f2a9c0d1e2b4a5f","reviewer":"alice","decision":"call","calls":[{"tool":"get_order_status","args":{"order_id":"ORD-9182"}}],"rationale":"One open order: a status lookup answers it."}

Required: item (an id from goldtrace items), reviewer, decision ("call" or
"no_call"), calls with "call" (the tools and arguments; [] or none with
"no_call") and rationale (as on the label screen; --rationale-optional
accepts none). Optional: guide_version (default: the guide in force),
seconds, saw_observed, submitted_at. Arguments are checked against the
tool's schema. docs/labeling.md describes every field.

Every line's "reviewer" must be you (--as NAME); a lead may import labels in
other reviewers' names with --for-others, which the audit log records. A
reviewer's summary counts the labels only: whether the items agreed is for
leads. One invalid line imports nothing (unless --skip-invalid); the first
20 problems are listed.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			be, who, err := cli.Actor(cmd, as)
			if err != nil {
				return err
			}
			o.File = args[0]
			open := func() (io.ReadCloser, error) {
				if o.File == "-" {
					return io.NopCloser(cli.In), nil
				}
				f, err := os.Open(o.File)
				if err != nil {
					return nil, fmt.Errorf("labels import: %w", err)
				}
				return f, nil
			}
			rep, err := be.ImportLabels(cmd.Context(), who, open, o)
			for _, p := range rep.Invalid {
				fmt.Fprintln(cli.Err, p)
			}
			if err != nil {
				return err
			}
			return render.LabelsImported(cli.Out, rep, asJSON)
		},
	}
	cmd.Flags().BoolVar(&o.SkipInvalid, "skip-invalid", false, "import the valid labels and report the invalid ones")
	cmd.Flags().BoolVar(&o.ForOthers, "for-others", false, "a lead importing labels in other reviewers' names (audited)")
	cmd.Flags().BoolVar(&o.RationaleOptional, "rationale-optional", false, "accept labels without a rationale (as label --rationale-optional)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the outcome as JSON")
	cmd.Flags().StringVar(&as, "as", "", "whose labels these are (every line's reviewer)")
	return cmd
}
