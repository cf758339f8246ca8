package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/internal/fserr"
)

func newInitCmd(cli *CLI) *cobra.Command {
	return &cobra.Command{
		Use:   "init",
		Short: "Create a new, empty goldtrace database (the project)",
		Long: `init creates the database named by --db, GOLDTRACE_DB or a config file
(./goldtrace.db otherwise) with the current schema, and refuses when one is
already there. Other commands never create a database (import, demo and users add
aside), so a mistyped path fails instead of starting an empty project.`,
		Example: `  goldtrace init --db support.db
  goldtrace init && goldtrace users add carol --role lead`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if app.IsPostgres(cli.DBPath) {
				exists, err := cli.dbExists(cmd.Context())
				if err != nil {
					return err
				}
				if exists {
					return fmt.Errorf("init: there is already a goldtrace project in %s", cli.DBPath)
				}
			} else if _, err := os.Stat(cli.DBPath); !errors.Is(err, fs.ErrNotExist) {
				if err != nil {
					return fmt.Errorf("init %s: %w", cli.DBPath, fserr.Bare(err))
				}
				return fmt.Errorf("init: there is already a goldtrace database at %s", cli.DBPath)
			}
			cli.quietCreate = true // said on stdout below
			if _, err := cli.Backend(cmd.Context()); err != nil {
				return err
			}
			fmt.Fprintf(cli.Out, "created %s\nnext:\n", cli.DBPath)
			fmt.Fprintf(cli.Out, "  goldtrace users add carol --role lead --db %s\n", app.ShellQuote(cli.DBPath))
			fmt.Fprintf(cli.Out, "  goldtrace import traces.jsonl.gz --db %s\n", app.ShellQuote(cli.DBPath))
			return nil
		},
	}
}
