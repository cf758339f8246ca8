package tui

import (
	"context"
	"testing"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/store"
)

// as is name's session over st, as the commands and the SSH server give it
// to the screens: every call the screens make is authorized for name.
func as(t testing.TB, st *store.Store, name string) API {
	t.Helper()
	a := app.New(st)
	actor, err := a.LocalActor(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return a.As(actor)
}
