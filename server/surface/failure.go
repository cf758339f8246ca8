package surface

import (
	"context"
	"errors"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/app/render"
)

// Failure is what an SSH client is told, a line each (without the
// "goldtrace: " they are printed after), of the command line args that
// actor ran on the server's database db and that failed with err. A line
// the surface refused (a *UsageError) is recorded in the audit log first,
// under the action a refusal of app's is about; a refusal that could not
// be recorded says so too. A raw failure of the database is explained as
// it is locally (app.ExplainError), and what actor may not learn of where
// the database lives is withheld (App.Shown): the server's log has it.
func Failure(ctx context.Context, be *app.App, actor app.Actor, db string, args []string, err error) []string {
	var lines []string
	var refused *UsageError
	if errors.As(err, &refused) {
		action := app.Action(0)
		var denied *app.DeniedError
		if errors.As(err, &denied) {
			action = denied.Action
		}
		if aerr := be.RecordSSHRefusal(context.WithoutCancel(ctx), actor, action, args, err.Error()); aerr != nil {
			lines = append(lines, render.OneLine(be.Shown(actor, aerr).Error()))
		}
	}
	if errors.Is(err, context.Canceled) {
		err = errors.New("cancelled: the session ended (the server is shutting down, the key was removed, or the client went away)")
	}
	return append(lines, render.OneLine(be.Shown(actor, app.ExplainError(db, err)).Error()))
}
