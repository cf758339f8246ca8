package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/goldtrace/goldtrace/internal/suggest"
	"github.com/goldtrace/goldtrace/store"
)

// App is the project as its users act on it: every method takes the Actor it
// runs as, asks Authorize, then reaches the store. The CLI, the TUI and the
// SSH server hold an *App, never the store's write methods directly.
type App struct {
	st *store.Store
	// withheld is told every error Shown worded without the database's
	// place (OnWithheld).
	withheld atomic.Pointer[func(Actor, error)]
}

// New returns the App over an open store. The caller still owns (closes)
// the store.
func New(st *store.Store) *App { return &App{st: st} }

// DatabasePath is the file the project's database was opened from.
func (a *App) DatabasePath() string { return a.st.Path() }

// ErrNotFound is what a refused read of another user's data answers, the
// same as for data that does not exist (store.ErrNotFound, so callers
// match either with errors.Is).
var ErrNotFound = store.ErrNotFound

// LocalActor is the actor for --as NAME on the machine that holds the
// database (trusted mode): the named user with their stored role, or the
// anonymous actor for "". An unknown name is an error that says how to add
// the user.
func (a *App) LocalActor(ctx context.Context, name string) (Actor, error) {
	if name == "" {
		return Actor{Source: SourceLocal}, nil
	}
	u, err := a.st.User(ctx, name)
	if errors.Is(err, store.ErrNotFound) {
		users, _ := a.st.Users(ctx)
		known := "there are no users yet"
		names := make([]string, len(users))
		for i, u := range users {
			names[i] = u.Name
		}
		if len(users) > 0 {
			known = "users are " + strings.Join(names, ", ")
		}
		if near := suggest.Closest(name, names); near != "" {
			// A slip of the keyboard, most likely: not a new user.
			return Actor{}, fmt.Errorf("no user %q: did you mean %s? (%s)", name, near, known)
		}
		return Actor{}, fmt.Errorf("no user %q (%s): add one with `goldtrace users add %s --role reviewer`", name, known, name)
	} else if err != nil {
		return Actor{}, fmt.Errorf("--as %s: %w", name, err)
	}
	return Actor{Name: u.Name, Role: Role(u.Role), Source: SourceLocal}, nil
}

// current re-reads a named actor's role, so a role change or a removed user
// takes effect at once, also in an SSH session that is already open.
func (a *App) current(ctx context.Context, actor Actor) (Actor, error) {
	if actor.Anonymous() {
		if actor.Source == "" {
			actor.Source = SourceLocal
		}
		return actor, nil
	}
	// One read for both: this runs before every action.
	u, keyIsTheirs, err := a.st.UserWithKey(ctx, actor.Name, actor.KeyFingerprint)
	return a.checked(actor, u, err, keyIsTheirs)
}

// checked is current's decision from what UserWithKey read: the actor
// with their role now, or why they may no longer act.
func (a *App) checked(actor Actor, u store.User, err error, keyIsTheirs bool) (Actor, error) {
	if errors.Is(err, store.ErrNotFound) {
		return actor, fmt.Errorf("user %s no longer exists: %w", actor.Name, ErrForbidden)
	} else if err != nil {
		return actor, err
	}
	actor.Role = Role(u.Role)
	if actor.Source == SourceSSH && !keyIsTheirs {
		// The key was removed since the session began.
		return actor, fmt.Errorf("key %s no longer belongs to %s: %w", actor.KeyFingerprint, actor.Name, ErrForbidden)
	}
	return actor, nil
}

// authorize refreshes the actor and decides the action. A refusal is
// recorded in the audit log and returned as a *DeniedError.
func (a *App) authorize(ctx context.Context, actor Actor, action Action, object string) (Actor, error) {
	actor, err := a.current(ctx, actor)
	if err != nil {
		return actor, err
	}
	if err := Authorize(actor, action); err != nil {
		return actor, a.refused(ctx, actor, action, object, err)
	}
	return actor, nil
}

// refused records a refusal in the audit log and returns it. A refusal
// that could not be recorded is still refused; the error then says both,
// so nobody takes the log for complete.
func (a *App) refused(ctx context.Context, actor Actor, action Action, object string, denied error) error {
	if err := a.record(ctx, actor, action, object, store.AuditDenied); err != nil {
		return errors.Join(denied, fmt.Errorf("the refusal could not be recorded: %w", err))
	}
	return denied
}

// audit records, in a transaction of its own, that actor did action to
// object: for reads (a lead's) and other actions that write nothing.
func (a *App) audit(ctx context.Context, actor Actor, action Action, object string) error {
	return a.audited(a.auditing(ctx, actor, action, object))
}

// auditing returns ctx carrying the audit entry of actor doing action to
// object. The store writes it inside the transaction that does the action,
// so the action and its entry commit or roll back together (a crash
// between them cannot lose the entry). Call audited once the action
// succeeded.
func (a *App) auditing(ctx context.Context, actor Actor, action Action, object string) context.Context {
	return store.WithAudit(ctx, entry(actor, action, object, store.AuditOK))
}

// act runs an authorized action's store call, do, with the action's audit
// entry: do's write transaction commits it, or it is written on its own
// after a do that committed none. A failed do records nothing and its error
// comes back as is.
func act[T any](a *App, ctx context.Context, actor Actor, action Action, object string, do func(context.Context) (T, error)) (T, error) {
	ctx = a.auditing(ctx, actor, action, object)
	v, err := do(ctx)
	if err != nil {
		return v, err
	}
	return v, a.audited(ctx)
}

// actErr is act for a store call that returns only an error.
func (a *App) actErr(ctx context.Context, actor Actor, action Action, object string, do func(context.Context) error) error {
	_, err := act(a, ctx, actor, action, object, func(ctx context.Context) (struct{}, error) { return struct{}{}, do(ctx) })
	return err
}

// audited writes ctx's audit entry on its own if the action committed no
// transaction that took it (a read; a bulk write, whose chunks do not).
// What was done is recorded even when the request was interrupted (ctrl+c,
// a dropped SSH client) right after it.
func (a *App) audited(ctx context.Context) error {
	if a.st.ReadOnly() {
		// A read-only database (--read-only, an archived copy, a
		// read-only share) cannot take an entry; its reads must work
		// still, and every write fails in the store anyway.
		return nil
	}
	if err := a.st.CommitAudit(ctx); err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	return nil
}

// record writes an entry of its own (a refusal: no action ran).
func (a *App) record(ctx context.Context, actor Actor, action Action, object, outcome string) error {
	return a.audited(store.WithAudit(ctx, entry(actor, action, object, outcome)))
}

func entry(actor Actor, action Action, object, outcome string) store.AuditEntry {
	src := actor.Source
	if src == "" {
		src = SourceLocal
	}
	return store.AuditEntry{
		Actor: actor.Name, Role: string(actor.Role), Source: string(src), KeyFingerprint: actor.KeyFingerprint,
		Action: action.String(), Object: object, Outcome: outcome,
	}
}
