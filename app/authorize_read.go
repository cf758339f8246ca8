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

// ownWrite authorizes action on the actor's own data (ownAs) and runs do,
// its store write, audited (actErr). On an engine that can
// (store.ChecksUsersInReads) the actor's user and key are read in the
// first round of do's transaction instead of a round trip of their own:
// the decision is made here, from that read, before the round that
// commits, and a refusal rolls the write back; then it is worded and
// audited as ownAs's. do must be a write that carries the check (on
// PostgreSQL SubmitLabel and SkipItem do, in their first round); one that
// fails before its first round is answered as before: refused first.
func (s *Session) ownWrite(ctx context.Context, action Action, reviewer, object string, do func(context.Context) error) error {
	return s.checkedWrite(ctx, action, reviewer, object, func(ctx context.Context, actor Actor) error {
		return s.app.actErr(ctx, actor, action, object, do)
	})
}

// checkedWrite is ownWrite for a write that is not audited (run audits
// it, or not: a draft's autosave is not): run gets ctx carrying the check
// and the actor as known so far; a refusal found by the check is audited
// on object. Its check also asserts the action's roles
// (store.UserCheck.Roles), so that a write whose first round commits (a
// draft's) carries it in that one round trip.
func (s *Session) checkedWrite(ctx context.Context, action Action, reviewer, object string, run func(context.Context, Actor) error) error {
	a := s.app
	if reviewer != s.actor.Name || s.actor.Anonymous() || !a.st.ChecksUsersInReads() {
		actor, err := s.ownAs(ctx, action, reviewer)
		if err != nil {
			return err
		}
		return run(ctx, actor)
	}
	var actor Actor
	var gone, denied error // gone: no longer the actor's; denied: the role's
	c := &store.UserCheck{Name: s.actor.Name, Fingerprint: s.actor.KeyFingerprint,
		Roles: action.roles(), NeedKey: s.actor.Source == SourceSSH}
	c.Then = func(c *store.UserCheck) error {
		actor, gone = a.checked(s.actor, c.User, c.Err(), c.KeyIsTheirs)
		if gone != nil {
			return gone
		}
		denied = Authorize(actor, action)
		return denied
	}
	err := run(store.WithUserCheck(ctx, c), s.actor)
	switch {
	case !c.Done():
		// The write failed (or, which it must not, wrote) before it read
		// the user: decide as ownAs does, then say why it failed.
		if _, aerr := s.ownAs(ctx, action, reviewer); aerr != nil {
			return aerr
		}
		return err
	case gone != nil:
		return gone
	case denied != nil:
		return a.refused(ctx, actor, action, object, denied)
	}
	return err
}
