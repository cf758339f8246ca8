package app

import (
	"context"
	"fmt"
)

// Role is what a user may do: label (reviewer), also adjudicate and manage
// the project (lead), or only read dataset versions and score against them
// (ci).
type Role string

// The roles a user can have.
const (
	RoleReviewer Role = "reviewer"
	RoleLead     Role = "lead"
	RoleCI       Role = "ci"
)

// Source is how an actor's identity was established.
type Source string

const (
	// SourceLocal: --as on the machine that holds the database (trusted mode:
	// whoever can write the database file is every user).
	SourceLocal Source = "local"
	// SourceSSH: the public key an SSH client authenticated with.
	SourceSSH Source = "ssh"
)

// Actor is the user an action runs as, and how that was established. The
// zero Actor is "nobody": no identity was given.
type Actor struct {
	Name string
	Role Role
	// Source is local or ssh.
	Source Source
	// KeyFingerprint is the SHA256 fingerprint of the key the SSH client
	// authenticated with ("SHA256:…"); empty for local actors.
	KeyFingerprint string
}

// Anonymous reports whether no identity was given.
func (a Actor) Anonymous() bool { return a.Name == "" }

// String names the actor and how it was established, for errors and the
// audit log: "alice (local --as)", "bob (ssh key SHA256:…)".
func (a Actor) String() string {
	switch {
	case a.Anonymous():
		return "nobody (no --as)"
	case a.Source == SourceSSH:
		return fmt.Sprintf("%s (ssh key %s)", a.Name, a.KeyFingerprint)
	default:
		return fmt.Sprintf("%s (local --as)", a.Name)
	}
}

type actorKey struct{}

// WithActor returns a context carrying the actor. The SSH server puts the
// key's user here; commands and screens read it with ActorFrom, never from a
// flag when it is set.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorFrom returns the actor the context carries, and whether it carries
// one.
func ActorFrom(ctx context.Context) (Actor, bool) {
	a, ok := ctx.Value(actorKey{}).(Actor)
	return a, ok
}
