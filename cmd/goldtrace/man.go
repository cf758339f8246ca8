package main

import (
	"fmt"

	"github.com/goldtrace/goldtrace/internal/manpage"
	"github.com/spf13/cobra"
)

func newManCmd(cli *CLI) *cobra.Command {
	return &cobra.Command{
		Use:   "man DIR",
		Short: "Write a man page for every command into DIR (section 1)",
		Long: `man writes goldtrace.1 and one page per command (goldtrace-export.1,
goldtrace-users-add.1, …) into DIR, generated from the commands' own help: name,
synopsis, description, options, examples and related commands. Install them
where man looks, e.g. /usr/local/share/man/man1, or read one with man -l FILE.`,
		Example: `  goldtrace man /usr/local/share/man/man1
  goldtrace man docs/man && man -l docs/man/goldtrace-score.1`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			n, err := manpage.WriteTree(cmd.Root(), dir, version)
			if err != nil {
				return fmt.Errorf("man: %w", err)
			}
			fmt.Fprintf(cli.Out, "wrote %d man pages to %s\n", n, dir)
			return nil
		},
	}
}
