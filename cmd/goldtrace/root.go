package main

import (
	"os"

	"github.com/spf13/cobra"
)

// defaultDB is the database used when neither --db nor GOLDTRACE_DB is set.
const defaultDB = "./goldtrace.db"

func newRootCmd(app *App) *cobra.Command {
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
			if err := refuseIdentityFlags(cmd, args); err != nil {
				return err
			}
			return app.applyConfig(cmd)
		},
	}
	db := os.Getenv("GOLDTRACE_DB")
	if db == "" {
		db = defaultDB
	}
	root.PersistentFlags().StringVar(&app.DBPath, "db", db, "database file (env GOLDTRACE_DB)")
	root.PersistentFlags().BoolVar(&app.ReadOnly, "read-only", false, "open the database for reading only (an archived or shared copy)")
	root.SetFlagErrorFunc(flagError)
	root.SetIn(app.In)
	root.SetOut(app.Out)
	root.SetErr(app.Err)
	root.AddCommand(
		newUsersCmd(app),
		newGuideCmd(app),
		newLabelCmd(app),
		newLabelsCmd(app),
		newAdjudicateCmd(app),
		newDemoCmd(app),
		newImportCmd(app),
		newTracesCmd(app),
		newSampleCmd(app),
		newBatchesCmd(app),
		newItemsCmd(app),
		newExportCmd(app),
		newDatasetsCmd(app),
		newDiffCmd(app),
		newVerifyCmd(app),
		newStatusCmd(app),
		newResolveCmd(app),
		newAssignCmd(app),
		newSettingsCmd(app),
		newDashboardCmd(app),
		newScoreCmd(app),
		newJudgeCmd(app),
		newPredictCmd(app),
		newAuditCmd(app),
		newServeCmd(app),
		newCheckCmd(app),
		newBackupCmd(app),
		newManCmd(app),
		newInitCmd(app),
		newWhoamiCmd(app),
	)
	root.InitDefaultCompletionCmd()
	addExamples(root)
	if !app.remote {
		// cobra keeps flag completions in a map of its own for the life
		// of the process: registered for every SSH command, they kept
		// every command tree (and what it printed to) alive.
		registerCompletions(root, app)
	}
	return root
}
