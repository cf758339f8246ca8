package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
)

// createsDatabase are the commands that may create a missing database:
// everything else refuses, so a forgotten GOLDTRACE_DB never forks a
// project into a new empty file.
var createsDatabase = map[string]bool{"import": true, "demo": true, "users add": true, "init": true,
	"judge calibrate": true, "predict": true} // the judge keeps its verdict cache in the database (score --judge too)

// onPostgres are the commands that work on a PostgreSQL project (and are
// tested there); every other command refuses one in one line, exit 2,
// before touching it. Commands that use no database are listed too.
var onPostgres = map[string]bool{
	"init": true, "whoami": true, "help": true, "man": true,
	"demo":      true, // makes its own SQLite project (or writes traces); never opens --db
	"users add": true, "users list": true, "users remove": true, "users key add": true, "users key remove": true,
	"import": true, "sample": true, "status": true, "batches": true, "traces": true, "datasets": true,
	"serve": true, "dashboard": true,
	"settings": true, "settings set": true, "check": true, "backup": true, "guide": true, "guide set": true, "guide show": true, "guide log": true,
	"copy":   true, // opens --from and --to itself, either engine
	"export": true, "datasets get": true, "diff": true, "verify": true, "drift": true, "score": true, "predict": true,
	"judge": true, "judge prompt": true, "judge calibrate": true,
	"label": true, "adjudicate": true, "resolve": true, "assign": true, "items": true, "audit": true,
	"labels": true, "labels import": true, "labels export": true,
}

// refuseOnPostgres refuses, before it touches the database, a command not
// yet available on a PostgreSQL project: typed locally, or sent
// by an SSH client to a server on one.
func refuseOnPostgres(cmd *cobra.Command, path, db string) error {
	if !app.IsPostgres(db) {
		return nil
	}
	if !onPostgres[path] && !strings.HasPrefix(path, "completion") && path != "" {
		return &exitError{code: 2, err: fmt.Errorf("goldtrace %s is not available on PostgreSQL yet (database %s); it works on a SQLite project", path, db)}
	}
	return nil
}

// applyConfig is the root's pre-run: it settles which database the command
// uses (--db, GOLDTRACE_DB, a config file, ./goldtrace.db) and fills --as
// from a config file when the command takes it and it was not given. Over
// SSH (an actor in the context) nothing is read: the server chose the
// database and the key is the identity.
func (a *CLI) applyConfig(cmd *cobra.Command) error {
	path := strings.TrimSpace(strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()))
	a.mayCreate = createsDatabase[path]
	if f := cmd.Flags().Lookup("judge"); path == "score" && f != nil && f.Changed {
		a.mayCreate = true // the judge's verdict cache lives in the database
	}
	if _, ok := app.ActorFrom(cmd.Context()); ok {
		a.dbFrom = "the server"
		return refuseOnPostgres(cmd, path, a.DBPath)
	}
	cfg, err := app.LoadConfig()
	if err != nil {
		return err
	}
	a.config = cfg
	dbFlag := cmd.Root().PersistentFlags().Lookup("db")
	switch {
	case dbFlag != nil && dbFlag.Changed:
		a.dbFrom = "--db"
	case os.Getenv("GOLDTRACE_DB") != "":
		a.DBPath, a.dbFrom = os.Getenv("GOLDTRACE_DB"), "GOLDTRACE_DB"
	case cfg.DB != "":
		a.DBPath, a.dbFrom = cfg.DB, cfg.DBFrom
	default:
		a.dbFrom = "default"
	}
	if app.IsPostgres(a.DBPath) {
		a.DBPath, a.dbPassword = app.RedactDSN(a.DBPath)
	}
	if err := refuseOnPostgres(cmd, path, a.DBPath); err != nil {
		return err
	}
	// users add is how the first users come to be: its --as is never a
	// default, or adding the configured user would need that user.
	if f := cmd.Flags().Lookup("as"); f != nil && !f.Changed && cfg.As != "" && path != "users add" {
		// Set without marking the flag changed: it is a default, not a
		// flag the user typed.
		if err := f.Value.Set(cfg.As); err != nil {
			return fmt.Errorf("%s: as: %w", cfg.AsFrom, err)
		}
	}
	return nil
}
