package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/goldtrace/goldtrace/dataset"
)

// Names offered to shell completion, and whether a batch named on the
// command line exists. Completion reads as nobody (no
// identity): completion shows only what anyone may list.

// anonymous is the actor completion reads as.
var anonymous = Actor{Source: SourceLocal}

// UserNames are the users' names (of role, or all for "").
func (a *App) UserNames(ctx context.Context, role string) ([]string, error) {
	users, err := a.Users(ctx, anonymous)
	var out []string
	for _, u := range users {
		if role == "" || u.Role == role {
			out = append(out, u.Name)
		}
	}
	return out, err
}

// UserList completes a comma-separated list of user names (--reviewers):
// the list typed so far, each time followed by one more name not in it.
func (a *App) UserList(ctx context.Context, toComplete string) ([]string, error) {
	names, err := a.UserNames(ctx, "")
	done := toComplete[:strings.LastIndex(toComplete, ",")+1]
	var out []string
	for _, n := range names {
		if !strings.Contains(","+done, ","+n+",") {
			out = append(out, done+n)
		}
	}
	return out, err
}

// BatchNames are the batches' names.
func (a *App) BatchNames(ctx context.Context) ([]string, error) {
	batches, err := a.Batches(ctx, anonymous)
	var out []string
	for _, b := range batches {
		out = append(out, b.Name)
	}
	return out, err
}

// DatasetNames are the names of the stored datasets.
func (a *App) DatasetNames(ctx context.Context) ([]string, error) {
	versions, err := a.DatasetVersions(ctx, anonymous, "")
	seen := map[string]bool{}
	var out []string
	for _, v := range versions {
		if !seen[v.Name] {
			seen[v.Name] = true
			out = append(out, v.Name)
		}
	}
	return out, err
}

// DatasetRefs are the stored versions as NAME@vN.
func (a *App) DatasetRefs(ctx context.Context) ([]string, error) {
	versions, err := a.DatasetVersions(ctx, anonymous, "")
	var out []string
	for _, v := range versions {
		out = append(out, dataset.Ref{Name: v.Name, Version: v.Version}.String())
	}
	return out, err
}

// MetaKeys are the traces' metadata keys as meta.KEY, after extra.
func (a *App) MetaKeys(ctx context.Context, extra ...string) ([]string, error) {
	keys, err := a.TraceMetaKeys(ctx, anonymous)
	out := append([]string(nil), extra...)
	for _, k := range keys {
		out = append(out, "meta."+k)
	}
	return out, err
}

// CheckBatch says, as actor, whether batch exists: nil, or an error that
// says how to list the batches.
func (a *App) CheckBatch(ctx context.Context, actor Actor, batch string) error {
	batches, err := a.Batches(ctx, actor)
	if err != nil {
		return fmt.Errorf("dashboard: %w", err)
	}
	for _, b := range batches {
		if b.Name == batch {
			return nil
		}
	}
	return fmt.Errorf("dashboard: no batch %q (goldtrace batches lists them)", batch)
}
