package main

import (
	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/app/render"
	"github.com/spf13/cobra"
)

func newDiffCmd(cli *CLI) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "diff NAME@vA NAME@vB | FILE FILE",
		Short: "Show added, removed and changed items between two dataset versions (stored or files)",
		Long: `diff compares two versions of a dataset: stored versions (NAME@vN) or canonical
JSONL files, in any mix. For each changed item it lists what changed: the expected
tool, which arguments, their rules, the acceptable alternatives, the rationale, the
provenance, or the input.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := app.Diff(cmd.Context(), args[0], args[1], cli.remote, cli.ActorCtx)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(cli, res)
			}
			render.Diff(cli.Out, res)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
