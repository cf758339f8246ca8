package main

import (
	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/app/render"
)

func newWhoamiCmd(cli *CLI) *cobra.Command {
	var as string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "whoami",
		Short: "Show the database and the identity in effect, and where each comes from",
		Long: `whoami prints which database commands use and why (--db, GOLDTRACE_DB, a config
file, or the default ./goldtrace.db), who you are for commands that take --as (the flag,
or "as" in a config file) with your role, and the config files read:
./goldtrace.toml, then $XDG_CONFIG_HOME/goldtrace/config.toml.`,
		Example: `  goldtrace whoami
  goldtrace whoami --as carol --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			req := app.WhoamiRequest{DB: cli.DBPath, DBFrom: cli.dbFrom, Password: cli.dbPassword,
				ConfigFiles: cli.config.LoadedFrom, Backend: cli.ActorCtx}
			if as != "" {
				req.As, req.AsFrom = as, "--as"
				if !cmd.Flags().Changed("as") {
					req.AsFrom = cli.config.AsFrom
				}
			}
			res, err := app.WhoamiOf(cmd.Context(), req)
			if err != nil {
				return err
			}
			return render.WriteWhoami(cli.Out, res, asJSON)
		},
	}
	cmd.Flags().StringVar(&as, "as", "", "the user to act as (default: as in a config file)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
