package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	gapp "github.com/goldtrace/goldtrace/app"
)

// Backend is the app layer over the project's store (opened on first use):
// what a command does goes through it, where it is authorized and audited.
func (a *App) Backend(ctx context.Context) (*gapp.App, error) {
	if a.backend != nil {
		return a.backend, nil
	}
	st, err := a.Store(ctx)
	if err != nil {
		return nil, err
	}
	a.backend = gapp.New(st)
	return a.backend, nil
}

// Actor is who runs cmd, with the backend to act through. When the context
// carries an actor (the SSH server put the key's user there) it is that
// actor, and --as was refused before the command ran (refuseIdentityFlags).
// Otherwise it is --as NAME looked up in the project (trusted local mode), or
// nobody when as is "".
func (a *App) Actor(cmd *cobra.Command, as string) (*gapp.App, gapp.Actor, error) {
	ctx := cmd.Context()
	be, err := a.Backend(ctx)
	if err != nil {
		return nil, gapp.Actor{}, err
	}
	if who, ok := gapp.ActorFrom(ctx); ok {
		return be, who, nil
	}
	who, err := be.LocalActor(ctx, as)
	return be, who, err
}

// refuseIdentityFlags is the root's pre-run: when the context carries an
// actor (a command run over SSH as the key's user), --as and --db are
// refused: identity comes from the key and the server alone opens the
// database.
func refuseIdentityFlags(cmd *cobra.Command, _ []string) error {
	who, ok := gapp.ActorFrom(cmd.Context())
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
