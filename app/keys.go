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
	line, where := strings.TrimSpace(arg), "--key"
	if fi, err := os.Stat(arg); err == nil && fi.Mode().IsRegular() {
		b, err := os.ReadFile(arg)
		if err != nil {
			return store.UserKey{}, fmt.Errorf("key file %s: %w", arg, err)
		}
		if bytes.Contains(b, []byte("PRIVATE KEY")) {
			return store.UserKey{}, fmt.Errorf("key file %s is a private key: give the public half (%s.pub)", arg, arg)
		}
		line, where = firstKeyLine(b), "key file "+arg
		if line == "" {
			return store.UserKey{}, fmt.Errorf("%s: no public key in it", where)
		}
	} else if looksLikePath(arg) {
		return store.UserKey{}, fmt.Errorf("--key %s: no such file (give a .pub file or an authorized_keys line)", arg)
	}
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

// UserKeys lists every user's keys by user name, for users list.
func (a *App) UserKeys(ctx context.Context, actor Actor) (map[string][]store.UserKey, error) {
	if _, err := a.authorize(ctx, actor, ActUsersRead, ""); err != nil {
		return nil, err
	}
	return a.st.UserKeys(ctx)
}
