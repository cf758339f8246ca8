package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"

	gapp "github.com/goldtrace/goldtrace/app"
)

// whoamiResult is what whoami reports (--json).
type whoamiResult struct {
	Database     string   `json:"database"`
	DatabaseFrom string   `json:"database_from"` // --db, GOLDTRACE_DB, a config file, default, the server
	Exists       bool     `json:"exists"`
	As           string   `json:"as"`      // "" when no identity is in effect
	AsFrom       string   `json:"as_from"` // --as, a config file, an SSH key, or ""
	Role         string   `json:"role,omitempty"`
	Mode         string   `json:"mode"` // local (trusted) or ssh
	ConfigFiles  []string `json:"config_files"`
}

func newWhoamiCmd(app *App) *cobra.Command {
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
			res := whoamiResult{Database: app.DBPath, DatabaseFrom: app.dbFrom, Mode: "local (trusted: whoever can write the database file can act as any user)",
				ConfigFiles: app.config.loadedFrom}
			if res.ConfigFiles == nil {
				res.ConfigFiles = []string{}
			}
			if who, ok := gapp.ActorFrom(ctx); ok {
				res.Exists, res.As, res.AsFrom, res.Role, res.Mode = true, who.Name, string(who.Source), string(who.Role), "ssh"
				return printWhoami(app, res, asJSON)
			}
			if as != "" {
				res.As = as
				res.AsFrom = "--as"
				if !cmd.Flags().Changed("as") {
					res.AsFrom = app.config.asFrom
				}
			}
			if _, err := os.Stat(app.DBPath); errors.Is(err, fs.ErrNotExist) {
				return printWhoami(app, res, asJSON)
			}
			res.Exists = true
			if res.As != "" {
				be, who, err := app.ActorCtx(ctx)
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
			return printWhoami(app, res, asJSON)
		},
	}
	cmd.Flags().StringVar(&as, "as", "", "the user to act as (default: as in a config file)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func printWhoami(app *App, r whoamiResult, asJSON bool) error {
	if asJSON {
		return printJSON(app, r)
	}
	db := r.Database + " (from " + r.DatabaseFrom + ")"
	if !r.Exists {
		db += ": does not exist yet (goldtrace init creates it)"
	}
	fmt.Fprintf(app.Out, "database  %s\n", db)
	switch {
	case r.As == "":
		fmt.Fprintf(app.Out, "as        nobody (give --as NAME, or set as = \"NAME\" in goldtrace.toml)\n")
	case r.Role != "":
		fmt.Fprintf(app.Out, "as        %s, %s (from %s)\n", r.As, r.Role, r.AsFrom)
	default:
		fmt.Fprintf(app.Out, "as        %s (from %s)\n", r.As, r.AsFrom)
	}
	fmt.Fprintf(app.Out, "mode      %s\n", r.Mode)
	files := "none"
	if len(r.ConfigFiles) > 0 {
		files = strings.Join(r.ConfigFiles, ", ")
	}
	fmt.Fprintf(app.Out, "config    %s\n", files)
	return nil
}
