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
			ctx := cmd.Context()
			res := render.Whoami{Database: cli.DBPath, DatabaseFrom: cli.dbFrom, Mode: "local (trusted: whoever can write the database file can act as any user)",
				ConfigFiles: cli.config.LoadedFrom}
			if res.ConfigFiles == nil {
				res.ConfigFiles = []string{}
			}
			if who, ok := app.ActorFrom(ctx); ok {
				res.Exists, res.As, res.AsFrom, res.Role, res.Mode = true, who.Name, string(who.Source), string(who.Role), "ssh"
				return render.WriteWhoami(cli.Out, res, asJSON)
			}
			if as != "" {
				res.As = as
				res.AsFrom = "--as"
				if !cmd.Flags().Changed("as") {
					res.AsFrom = cli.config.AsFrom
				}
			}
			if exists, err := cli.dbExists(ctx); err != nil {
				return err
			} else if !exists {
				return render.WriteWhoami(cli.Out, res, asJSON)
			}
			res.Exists = true
			if res.As != "" {
				be, who, err := cli.ActorCtx(ctx)
				if err != nil {
					return err
				}
				users, err := be.Users(ctx, who)
				if err != nil {
					return err
				}
				res.Role = "(no such user in this database)"
				for _, u := range users {
					if u.Name == res.As {
						res.Role = u.Role
					}
				}
			}
			return render.WriteWhoami(cli.Out, res, asJSON)
		},
	}
	cmd.Flags().StringVar(&as, "as", "", "the user to act as (default: as in a config file)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
