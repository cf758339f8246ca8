package main

import (
	"os"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/internal/coldstart"
	"github.com/spf13/cobra"
)

// defaultDB is the database used when neither --db nor GOLDTRACE_DB is set.
const defaultDB = "./goldtrace.db"

func newRootCmd(cli *CLI) *cobra.Command {
	root := &cobra.Command{
		Use:   "goldtrace",
		Short: "Turn LLM-agent traces into labeled, adjudicated, versioned gold datasets for tool-selection evals",
		Long: `goldtrace imports production agent traces, samples decision points, lets two
reviewers label each one blind in a terminal UI, has a lead adjudicate where they
disagree, exports immutable versioned gold datasets, and scores model runs
against them for CI.`,
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
		// Over SSH the context carries the key's user: no --as, no --db.
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Annotations["screen"] == "" {
				coldstart.Resume() // a screen resumes it after its first frame
			}
			if err := refuseIdentityFlags(cmd, args); err != nil {
				return err
			}
			return cli.applyConfig(cmd)
		},
	}
	db := os.Getenv("GOLDTRACE_DB")
	if db == "" {
		db = defaultDB
	}
	// The default shows in --help: a password in GOLDTRACE_DB must not
	// (applyConfig reads the variable itself when --db is not given).
	db, _ = app.RedactDSN(db)
	root.PersistentFlags().StringVar(&cli.DBPath, "db", db, "database file, or postgres://USER@HOST:PORT/DB?sslmode=… (env GOLDTRACE_DB; see docs/postgres.md)")
	root.PersistentFlags().BoolVar(&cli.ReadOnly, "read-only", false, "open the database for reading only (an archived or shared copy)")
	root.SetFlagErrorFunc(flagError)
	root.SetIn(cli.In)
	root.SetOut(cli.Out)
	root.SetErr(cli.Err)
	root.AddCommand(
		newUsersCmd(cli),
		newGuideCmd(cli),
		newLabelCmd(cli),
		newLabelsCmd(cli),
		newAdjudicateCmd(cli),
		newDemoCmd(cli),
		newImportCmd(cli),
		newTracesCmd(cli),
		newSampleCmd(cli),
		newBatchesCmd(cli),
		newItemsCmd(cli),
		newExportCmd(cli),
		newDatasetsCmd(cli),
		newDiffCmd(cli),
		newVerifyCmd(cli),
		newStatusCmd(cli),
		newResolveCmd(cli),
		newAssignCmd(cli),
		newSettingsCmd(cli),
		newDashboardCmd(cli),
		newScoreCmd(cli),
		newJudgeCmd(cli),
		newPredictCmd(cli),
		newDriftCmd(cli),
		newAuditCmd(cli),
		newServeCmd(cli),
		newCheckCmd(cli),
		newBackupCmd(cli),
		newCopyCmd(cli),
		newManCmd(cli),
		newInitCmd(cli),
		newWhoamiCmd(cli),
	)
	root.InitDefaultCompletionCmd()
	addExamples(root)
	if !cli.remote {
		// cobra keeps flag completions in a map of its own for the life
		// of the process: registered for every SSH command, they kept
		// every command tree (and what it printed to) alive.
		registerCompletions(root, cli)
	}
	return root
}
