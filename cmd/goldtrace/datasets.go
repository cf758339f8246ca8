package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/app/render"
	"github.com/goldtrace/goldtrace/dataset"
)

func newDatasetsCmd(cli *CLI) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "datasets [NAME]",
		Short: "List exported dataset versions: items, date, sha256, message",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := ""
			if len(args) == 1 {
				if err := dataset.ValidName(args[0]); err != nil {
					return err
				}
				name = args[0]
			}
			be, who, err := cli.Actor(cmd, "")
			if err != nil {
				return err
			}
			versions, err := be.DatasetVersions(cmd.Context(), who, name)
			if err != nil {
				return err
			}
			if name != "" && len(versions) == 0 {
				return fmt.Errorf("dataset %q: no such dataset (goldtrace datasets lists them)", name)
			}
			if asJSON {
				if versions == nil {
					versions = []app.DatasetVersion{}
				}
				return printJSON(cli, versions)
			}
			if len(versions) == 0 {
				fmt.Fprintln(cli.Out, "no datasets yet: goldtrace export NAME")
				return nil
			}
			tw := tabwriter.NewWriter(cli.Out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "DATASET\tVERSION\tITEMS\tCREATED\tBY\tSHA256\tMESSAGE")
			for _, v := range versions {
				by := v.CreatedBy
				if by == "" {
					by = "-"
				}
				fmt.Fprintf(tw, "%s\tv%d\t%d\t%s\t%s\t%s\t%s\n", v.Name, v.Version, v.Count, v.CreatedAt, by, v.SHA256[:12], render.OneLine(v.Message))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.AddCommand(newDatasetsGetCmd(cli))
	return cmd
}
