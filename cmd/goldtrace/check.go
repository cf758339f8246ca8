package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/app/render"
)

func newCheckCmd(cli *CLI) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Verify the database: SQLite integrity, foreign keys and goldtrace's own invariants",
		Long: `Reads the whole database and reports every problem found: SQLite's
integrity check, foreign keys, and goldtrace's invariants (every submitted
assignment has its label, every gold item its source labels, every exported
version its records and content hash, no draft left on a finished assignment,
no half-written batch, an item assigned exactly when it has left status new).
Exit 0 when healthy, 1 with the list of problems.
Write commands refuse a database that fails the quick version of this check.
On PostgreSQL the server checks its own pages and enforces foreign keys:
check reports constraints left unvalidated, then goldtrace's invariants.`,
		Example: `  goldtrace check
  goldtrace check --db archive/2026-q1.db --read-only --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if exists, err := cli.dbExists(cmd.Context()); err != nil {
				return err
			} else if !exists {
				return fmt.Errorf("database %s does not exist", cli.DBPath)
			}
			// Locally no identity is needed (trusted mode); over SSH the
			// key's user must be a lead.
			who, _ := app.ActorFrom(cmd.Context())
			problems, err := app.CheckDatabase(cmd.Context(), who, cli.DBPath, app.DBOptions{ReadOnly: cli.ReadOnly, Password: cli.dbPassword})
			if err != nil {
				return err
			}
			if asJSON {
				if err := render.IndentJSON(cli.Out, struct {
					DB       string        `json:"db"`
					OK       bool          `json:"ok"`
					Problems []app.Problem `json:"problems"`
				}{cli.DBPath, len(problems) == 0, append([]app.Problem{}, problems...)}); err != nil {
					return err
				}
			} else {
				for _, p := range problems {
					fmt.Fprintf(cli.Out, "%s: %s\n", p.Kind, p.Detail)
				}
			}
			if len(problems) > 0 && app.IsPostgres(cli.DBPath) {
				return failed("check %s: %d problem(s) found (repair them, or restore the database from its PostgreSQL backup)", cli.DBPath, len(problems))
			}
			if len(problems) > 0 {
				return failed("check %s: %d problem(s) found; writes are refused until it passes (go back to your last `goldtrace backup` copy, or repair)", cli.DBPath, len(problems))
			}
			if !asJSON {
				fmt.Fprintf(cli.Out, "%s: ok\n", cli.DBPath)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "write the result as JSON")
	return cmd
}

func newBackupCmd(cli *CLI) *cobra.Command {
	return &cobra.Command{
		Use:   "backup FILE",
		Short: "Write a consistent copy of the database to FILE while others keep working",
		Long: `Copies one consistent snapshot of the database into FILE (which must not
exist) with SQLite's VACUUM INTO, while reviewers keep labeling, and checks the
copy before putting it in place. A PostgreSQL project is backed up with
pg_dump or the server's own backups: backup says so and exits 2.`,
		Example: `  goldtrace backup backups/goldtrace-2026-05-02.db
  goldtrace backup /mnt/share/goldtrace.db --db project/goldtrace.db`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if exists, err := cli.dbExists(cmd.Context()); err != nil {
				return err
			} else if !exists {
				return fmt.Errorf("database %s does not exist", cli.DBPath)
			}
			be, who, err := cli.ActorCtx(cmd.Context())
			if err != nil {
				return err
			}
			if err := be.Backup(cmd.Context(), who, args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cli.Err, "backed up %s to %s\n", cli.DBPath, args[0])
			return nil
		},
	}
}
