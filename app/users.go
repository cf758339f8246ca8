package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/goldtrace/goldtrace/store"
)

// AddUser creates a user or changes a user's role. Leads only, with one
// exception, the bootstrap: while the project has no lead, anyone (no
// identity needed) may add users, so the first `users add NAME --role lead`
// works on a new project. After that a lead's identity is needed. keys are
// the user's SSH keys (ParseKey), added in the same transaction: a key that
// belongs to someone else refuses the whole change.
func (a *App) AddUser(ctx context.Context, actor Actor, name string, role Role, keys ...store.UserKey) error {
	if role != RoleReviewer && role != RoleLead && role != RoleCI {
		return fmt.Errorf("role must be %s, %s or %s, not %q", RoleReviewer, RoleLead, RoleCI, role)
	}
	object := name + " as " + string(role)
	counts, err := a.st.UserCounts(ctx)
	if err != nil {
		return fmt.Errorf("add user: %w", err)
	}
	bootstrap := counts[store.RoleLead] == 0
	if bootstrap {
		if actor, err = a.current(ctx, actor); err != nil {
			return err
		}
	} else if actor, err = a.authorize(ctx, actor, ActUsersManage, object); err != nil {
		return err
	}
	if role != RoleLead && counts[store.RoleLead] == 1 {
		if u, err := a.st.User(ctx, name); err == nil && u.Role == store.RoleLead {
			return fmt.Errorf("%s is the project's only lead: add another lead before changing %s's role", name, name)
		}
	}
	for _, k := range keys {
		object += ", key " + k.Fingerprint
	}
	if bootstrap {
		object += " (bootstrap: no lead yet)"
	}
	return a.actErr(ctx, actor, ActUsersManage, object, func(ctx context.Context) error {
		if err := a.st.AddUserWithKeys(ctx, name, string(role), keys); err != nil {
			return fmt.Errorf("add user %s: %w", name, err)
		}
		return nil
	})
}

// Users lists the users.
func (a *App) Users(ctx context.Context, actor Actor) ([]store.User, error) {
	if _, err := a.authorize(ctx, actor, ActUsersRead, ""); err != nil {
		return nil, err
	}
	return a.st.Users(ctx)
}

// Settings reads the project settings.
func (a *App) Settings(ctx context.Context, actor Actor) (map[string]string, error) {
	if _, err := a.authorize(ctx, actor, ActSettingsRead, ""); err != nil {
		return nil, err
	}
	return a.st.Settings(ctx)
}

// SetSetting changes a project setting (leads only) and returns its new
// value.
func (a *App) SetSetting(ctx context.Context, actor Actor, key, value string) (string, error) {
	object := key + "=" + value
	actor, err := a.authorize(ctx, actor, ActSettingsSet, object)
	if err != nil {
		return "", err
	}
	if err := a.actErr(ctx, actor, ActSettingsSet, object, func(ctx context.Context) error {
		return a.st.SetSetting(ctx, actor.Name, key, value)
	}); err != nil {
		return "", err
	}
	return a.st.Setting(ctx, key)
}

// AuditLog reads the audit log (leads only; reading it is audited too).
func (a *App) AuditLog(ctx context.Context, actor Actor, f store.AuditFilter) ([]store.AuditEntry, error) {
	actor, err := a.authorize(ctx, actor, ActAuditRead, "")
	if err != nil {
		return nil, err
	}
	log, err := a.st.AuditLog(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	return log, a.audit(ctx, actor, ActAuditRead, "")
}

// isNotFound reports whether err is the store's (or app's) not found.
func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }
