package app

import (
	"context"

	"github.com/goldtrace/goldtrace/store"
)

// Backup writes a consistent copy of the database to dest while others keep
// working (ActMaintain: over SSH the copy holds everyone's labels).
func (a *App) Backup(ctx context.Context, actor Actor, dest string) error {
	object := "backup to " + dest
	actor, err := a.authorize(ctx, actor, ActMaintain, object)
	if err != nil {
		return err
	}
	if err := a.st.Backup(ctx, dest); err != nil {
		return err
	}
	return a.audit(ctx, actor, ActMaintain, object+": done")
}

// CheckDatabase verifies the engine's integrity and goldtrace's invariants
// of the database at path for actor (ActMaintain), opened with opt. It opens its own connection,
// without applying the schema, so it works on a database that an App could
// not open and needs no App; for the same reason a refusal is not audited.
func CheckDatabase(ctx context.Context, actor Actor, path string, opt store.Options) ([]store.Problem, error) {
	if err := Authorize(actor, ActMaintain); err != nil {
		return nil, err
	}
	opt.NoSchema = true
	st, err := store.OpenWith(ctx, path, opt)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return st.Check(ctx)
}

// UnfinishedImports lists the imports that were interrupted before they
// finished, for whoever may read the trace summary.
func (a *App) UnfinishedImports(ctx context.Context, actor Actor) ([]store.UnfinishedImport, error) {
	if _, err := a.authorize(ctx, actor, ActTracesRead, ""); err != nil {
		return nil, err
	}
	return a.st.UnfinishedImports(ctx)
}
