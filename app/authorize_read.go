package app

import (
	"context"

	"github.com/goldtrace/goldtrace/store"
)

// authorizeRead is authorize for an action whose first store call, read,
// only reads: on an engine that reads the actor's user and key in the
// round trip of such a read (PostgreSQL: store.ChecksUsersInReads), read
// carries that check (a store.UserCheck in its ctx) instead of a round
// trip of its own before it, and the decision is made here, from what the
// check saw at the moment of the read. A refused actor gets nothing of
// what read returned, and the refusal is the same, worded and audited as
// authorize's. Elsewhere (SQLite, an anonymous actor) it is authorize,
// then read.
func authorizeRead[T any](a *App, ctx context.Context, actor Actor, action Action, object string, read func(context.Context) (T, error)) (Actor, T, error) {
	var zero T
	if actor.Anonymous() || !a.st.ChecksUsersInReads() {
		actor, err := a.authorize(ctx, actor, action, object)
		if err != nil {
			return actor, zero, err
		}
		v, err := read(ctx)
		return actor, v, err
	}
	c := &store.UserCheck{Name: actor.Name, Fingerprint: actor.KeyFingerprint}
	v, rerr := read(store.WithUserCheck(ctx, c))
	if !c.Done() {
		if rerr != nil {
			// The read failed before it could say who the actor is.
			return actor, zero, rerr
		}
		// A read that did not carry the check: check after it, still
		// before anything leaves.
		actor, err := a.authorize(ctx, actor, action, object)
		if err != nil {
			return actor, zero, err
		}
		return actor, v, nil
	}
	actor, err := a.checked(actor, c.User, c.Err(), c.KeyIsTheirs)
	if err != nil {
		return actor, zero, err
	}
	if err := Authorize(actor, action); err != nil {
		return actor, zero, a.refused(ctx, actor, action, object, err)
	}
	return actor, v, rerr
}
