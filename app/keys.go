package app

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	"golang.org/x/crypto/ssh"

	"github.com/goldtrace/goldtrace/store"
)

// ParseKey reads a user's SSH public key from a --key argument: an
// authorized_keys line ("ssh-ed25519 AAAA… alice@laptop") or the path of a
// .pub file holding one. It returns the key as stored: its SHA256
// fingerprint and the normalised line (type, base64, comment). Private keys,
// certificates and authorized_keys options are refused, each with a one-line
// reason.
func ParseKey(arg string) (store.UserKey, error) {
	if fi, err := os.Stat(arg); err == nil && fi.Mode().IsRegular() {
		b, err := os.ReadFile(arg)
		if err != nil {
			return store.UserKey{}, fmt.Errorf("key file %s: %w", arg, err)
		}
		return ParseKeyText(b, "key file "+arg)
	} else if looksLikePath(arg) {
		return store.UserKey{}, fmt.Errorf("--key %s: no such file (give a .pub file or an authorized_keys line)", arg)
	}
	return parseKeyLine(strings.TrimSpace(arg), "--key")
}

// ParseKeyText reads a key from the text of a .pub file (or stdin), named
// where in errors.
func ParseKeyText(b []byte, where string) (store.UserKey, error) {
	if bytes.Contains(b, []byte("PRIVATE KEY")) {
		return store.UserKey{}, fmt.Errorf("%s is a private key: give the public half (the .pub file)", where)
	}
	line := firstKeyLine(b)
	if line == "" {
		return store.UserKey{}, fmt.Errorf("%s: no public key in it", where)
	}
	return parseKeyLine(line, where)
}

func parseKeyLine(line, where string) (store.UserKey, error) {
	pub, comment, opts, _, err := ssh.ParseAuthorizedKey([]byte(line))
	if err != nil {
		return store.UserKey{}, fmt.Errorf("%s: not an SSH public key (want an authorized_keys line such as \"ssh-ed25519 AAAA… you@host\" or a .pub file)", where)
	}
	if len(opts) > 0 {
		return store.UserKey{}, fmt.Errorf("%s: authorized_keys options (%s) are not supported: give the key alone", where, strings.Join(opts, ","))
	}
	if _, ok := pub.(*ssh.Certificate); ok {
		return store.UserKey{}, fmt.Errorf("%s: a certificate, not a public key: give the key itself", where)
	}
	stored := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(pub)))
	if comment = strings.TrimSpace(comment); comment != "" {
		stored += " " + comment
	}
	return store.UserKey{Fingerprint: ssh.FingerprintSHA256(pub), Key: stored}, nil
}

// KeyRef names one of a user's keys for removal: a fingerprint
// ("SHA256:…") as users list prints it, or the key itself (line or .pub).
func KeyRef(arg string) (string, error) {
	if strings.HasPrefix(arg, "SHA256:") {
		return arg, nil
	}
	k, err := ParseKey(arg)
	if err != nil {
		return "", err
	}
	return k.Fingerprint, nil
}

// firstKeyLine is the first line of a .pub or authorized_keys file that is
// not blank or a comment.
func firstKeyLine(b []byte) string {
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			return l
		}
	}
	return ""
}

// looksLikePath is true for an argument that was meant as a file name: one
// word ending in .pub or containing a slash and no spaces.
func looksLikePath(arg string) bool {
	if strings.ContainsAny(arg, " \t") {
		return false
	}
	return strings.HasSuffix(arg, ".pub") || strings.Contains(arg, string(os.PathSeparator))
}

// KeyActor is the user an SSH key belongs to, by fingerprint, as an actor
// with source ssh: how goldtrace serve authenticates. store.ErrNotFound when
// the key is nobody's.
func (a *App) KeyActor(ctx context.Context, fingerprint string) (Actor, error) {
	u, err := a.st.KeyUser(ctx, fingerprint)
	if err != nil {
		return Actor{}, err
	}
	return Actor{Name: u.Name, Role: Role(u.Role), Source: SourceSSH, KeyFingerprint: fingerprint}, nil
}

// UserKeys lists every user's keys by user name, for users list.
func (a *App) UserKeys(ctx context.Context, actor Actor) (map[string][]store.UserKey, error) {
	if _, err := a.authorize(ctx, actor, ActUsersRead, ""); err != nil {
		return nil, err
	}
	return a.st.UserKeys(ctx)
}

// AddUserKey gives a user another key. Like AddUser: a lead, or anyone
// while the project has no lead.
func (a *App) AddUserKey(ctx context.Context, actor Actor, name string, k store.UserKey) error {
	object := name + " key " + k.Fingerprint
	actor, err := a.manageUsers(ctx, actor, object)
	if err != nil {
		return err
	}
	return a.actErr(ctx, actor, ActUsersManage, "add "+object, func(ctx context.Context) error {
		return a.st.AddUserKey(ctx, name, k)
	})
}

// RemoveUserKey takes a key from a user: from then on it opens nothing,
// also on SSH connections made with it before.
func (a *App) RemoveUserKey(ctx context.Context, actor Actor, name, fingerprint string) error {
	object := name + " key " + fingerprint
	actor, err := a.manageUsers(ctx, actor, object)
	if err != nil {
		return err
	}
	return a.actErr(ctx, actor, ActUsersManage, "remove "+object, func(ctx context.Context) error {
		return a.st.RemoveUserKey(ctx, name, fingerprint)
	})
}

// RemoveUser takes a user out of the project (store.RemoveUser): their keys
// stop working at once. The project's only lead cannot be removed: with no
// lead, anyone could make themselves one.
func (a *App) RemoveUser(ctx context.Context, actor Actor, name string) (kept bool, err error) {
	actor, err = a.manageUsers(ctx, actor, "remove "+name)
	if err != nil {
		return false, err
	}
	counts, err := a.st.UserCounts(ctx)
	if err != nil {
		return false, err
	}
	if u, err := a.st.User(ctx, name); err == nil && u.Role == store.RoleLead && counts[store.RoleLead] == 1 {
		return false, fmt.Errorf("%s is the project's only lead: add another lead before removing %s", name, name)
	}
	return act(a, ctx, actor, ActUsersManage, "remove "+name, func(ctx context.Context) (bool, error) {
		return a.st.RemoveUser(ctx, name)
	})
}

// manageUsers decides a change to users or keys: a lead's, or anyone's
// while the project has no lead (the bootstrap AddUser describes).
func (a *App) manageUsers(ctx context.Context, actor Actor, object string) (Actor, error) {
	counts, err := a.st.UserCounts(ctx)
	if err != nil {
		return actor, err
	}
	if counts[store.RoleLead] == 0 {
		return a.current(ctx, actor)
	}
	return a.authorize(ctx, actor, ActUsersManage, object)
}

// WatchKeyRemovals calls removed soon after any process removes keys from
// the project, until ctx ends: what serve replicas on one PostgreSQL
// database use to end a removed key's sessions on every replica at once.
// It returns false when the engine cannot announce removals (SQLite).
func (a *App) WatchKeyRemovals(ctx context.Context, removed func(), up func(listening bool)) bool {
	return a.st.WatchKeyRemovals(ctx, removed, up)
}
