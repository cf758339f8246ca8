package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
)

func newCopyCmd(cli *CLI) *cobra.Command {
	var from, to string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "copy --from DB --to DB",
		Short: "Copy a whole project to another database (SQLite ⇄ PostgreSQL) and check the copy",
		Long: `Copies everything of the project at --from into --to: traces, items,
batches, assignments, labels, drafts, disputes, gold, adjudications, notes,
guides, dataset versions, settings, the audit log, users and their keys,
judge verdicts and every other table of the schema. Either side is a SQLite
file or a postgres:// DSN. The target must be a new file, or a database
without a project's rows (its tables are created when missing, inside the
copy's one transaction): all of it or nothing. Others may keep working on the
source meanwhile: the copy reads one snapshot of it.

Then copy checks the copy and prints what it checked: every dataset version
reads back byte-identical (JSONL and manifest) and verifies record by
record, and an export of the gold now would write the same records from the
copy as from the original. Exit 1 when they differ. --db is not used.`,
		Example: `  goldtrace copy --from support.db --to 'postgres://gold@db.example:5432/support?sslmode=verify-full'
  goldtrace copy --from 'postgres://gold@db.example/support' --to support-copy.db`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if from == "" || to == "" {
				return &exitError{code: 2, err: errors.New("copy needs --from and --to (a SQLite file or a postgres:// DSN each)")}
			}
			who, _ := app.ActorFrom(cmd.Context())
			res, err := app.CopyProject(cmd.Context(), who, from, to, func(t app.CopiedTable) {
				if !asJSON {
					fmt.Fprintf(cli.Err, "copied %-18s %d rows\n", t.Name, t.Rows)
				}
			})
			if err != nil {
				code := 2
				var mismatch *app.CopyMismatchError
				if errors.As(err, &mismatch) {
					code = 1
				}
				return &exitError{code: code, err: hidePasswords(app.ExplainError(to, err), from, to)}
			}
			if asJSON {
				enc := json.NewEncoder(cli.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			}
			var rows int64
			for _, t := range res.Tables {
				rows += t.Rows
			}
			fmt.Fprintf(cli.Out, "copied %s to %s: %d tables, %d rows\n", res.From, res.To, len(res.Tables), rows)
			for _, v := range res.Versions {
				fmt.Fprintf(cli.Out, "checked %s: %d records, sha256 %s, JSONL and manifest byte-identical, verified\n", v.Ref, v.Records, v.SHA256)
			}
			if res.Gold != nil {
				fmt.Fprintf(cli.Out, "checked the gold: an export now writes the same %d records (sha256 %s)\n", res.Gold.Records, res.Gold.SHA256)
			} else {
				fmt.Fprintln(cli.Out, "checked the gold: none yet")
			}
			if len(res.Versions) == 0 {
				fmt.Fprintln(cli.Out, "no dataset versions to check")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the project to copy: a SQLite file or postgres:// DSN")
	cmd.Flags().StringVar(&to, "to", "", "where to copy it: a new SQLite file or an empty postgres:// database")
	cmd.Flags().BoolVar(&asJSON, "json", false, "write what was copied and checked as JSON")
	return cmd
}

// hidePasswords replaces the passwords of the DSNs in err's message.
func hidePasswords(err error, dsns ...string) error {
	msg := err.Error()
	for _, d := range dsns {
		if _, pw := app.RedactDSN(d); pw != "" {
			msg = strings.ReplaceAll(msg, pw, "********")
		}
	}
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}
