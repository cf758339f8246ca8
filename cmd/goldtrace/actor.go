package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/goldtrace/goldtrace/app"
)

// Backend is the app layer over the project's store (opened on first use):
// what a command does goes through it, where it is authorized and audited.
func (a *CLI) Backend(ctx context.Context) (*app.App, error) {
	return a.open(ctx)
}

// Actor is who runs cmd, with the backend to act through. When the context
// carries an actor (the SSH server put the key's user there) it is that
// actor, and --as was refused before the command ran (refuseIdentityFlags).
// Otherwise it is --as NAME looked up in the project (trusted local mode), or
// nobody when as is "".
func (a *CLI) Actor(cmd *cobra.Command, as string) (*app.App, app.Actor, error) {
	ctx := cmd.Context()
	be, err := a.Backend(ctx)
	if err != nil {
		return nil, app.Actor{}, err
	}
	if who, ok := app.ActorFrom(ctx); ok {
		return be, who, nil
	}
	who, err := be.LocalActor(ctx, as)
	if err != nil && !strings.Contains(err.Error(), a.DBPath) {
		err = fmt.Errorf("%w (in %s)", err, a.DBPath)
	}
	return be, who, err
}

// permit checks that the actor of a command without --as (the context's,
// or nobody) may do action; done records it in the audit log once it is done.
func (a *CLI) permit(ctx context.Context, action app.Action, object string) (done func(what string) error, err error) {
	be, who, err := a.ActorCtx(ctx)
	if err != nil {
		return nil, err
	}
	if who, err = be.Permit(ctx, who, action, object); err != nil {
		return nil, err
	}
	return func(what string) error {
		if object != "" {
			what = object + ": " + what
		}
		// Recorded even when the command was interrupted (SIGHUP during an
		// import): what was done is done.
		return be.Audit(context.WithoutCancel(ctx), who, action, what)
	}, nil
}

// ActorCtx is Actor for code that has the context but not the command: the
// context's actor, or nobody (commands without --as).
func (a *CLI) ActorCtx(ctx context.Context) (*app.App, app.Actor, error) {
	be, err := a.Backend(ctx)
	if err != nil {
		return nil, app.Actor{}, err
	}
	if who, ok := app.ActorFrom(ctx); ok {
		return be, who, nil
	}
	return be, app.Actor{Source: app.SourceLocal}, nil
}

// refuseIdentityFlags is the root's pre-run: when the context carries an
// actor (a command run over SSH as the key's user), --as and --db are
// refused: identity comes from the key and the server alone opens the
// database.
func refuseIdentityFlags(cmd *cobra.Command, _ []string) error {
	who, ok := app.ActorFrom(cmd.Context())
	if !ok {
		return nil
	}
	var bad string
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if bad == "" && (f.Name == "as" || f.Name == "db") {
			bad = f.Name
		}
	})
	if bad != "" {
		return fmt.Errorf("--%s is not accepted here: you are %s", bad, who)
	}
	return nil
}
