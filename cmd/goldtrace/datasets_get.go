package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/dataset"
)

func newDatasetsGetCmd(cli *CLI) *cobra.Command {
	var manifest bool
	cmd := &cobra.Command{
		Use:   "get NAME@vN",
		Short: "Write one dataset version's JSONL (or its manifest) to stdout, byte for byte as exported",
		Long: `get streams the exact bytes of an exported version from the project, so a CI job
can fetch gold over SSH with a ci key:

  ssh -p 2222 goldtrace.example -- datasets get support@v3 > gold.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref, isRef, err := dataset.ParseRef(args[0])
			if err != nil {
				return err
			}
			if !isRef {
				return fmt.Errorf("%q: want NAME@vN (goldtrace datasets lists the versions)", args[0])
			}
			be, who, err := cli.Actor(cmd, "")
			if err != nil {
				return err
			}
			_, content, man, err := be.DatasetFiles(cmd.Context(), who, ref.Name, ref.Version)
			if errors.Is(err, app.ErrNotFound) {
				return fmt.Errorf("dataset %s: no such version (goldtrace datasets %s lists them)", ref, ref.Name)
			} else if err != nil {
				return err
			}
			if manifest {
				content = man
			}
			_, err = cli.Out.Write(content)
			return err
		},
	}
	cmd.Flags().BoolVar(&manifest, "manifest", false, "write the version's manifest instead of its JSONL")
	return cmd
}
