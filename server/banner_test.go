package server

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	gossh "golang.org/x/crypto/ssh"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/tui"
)

// While keys cannot be looked up (the database is away), a connecting
// client is refused and, from the next connection on, told why before it
// authenticates, without where the database lives; once a lookup answers,
// the banner goes.
func TestBannerSaysKeysCannotBeChecked(t *testing.T) {
	defer func(was time.Duration) { keyLookupPatience = was }(keyLookupPatience)
	keyLookupPatience = 200 * time.Millisecond
	_, hostPriv, _ := ed25519.GenerateKey(rand.Reader)
	host, _ := gossh.NewSignerFromKey(hostPriv)
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	key, _ := gossh.NewSignerFromKey(priv)
	var down atomic.Bool
	srv, err := New(Config{
		HostKey: host,
		KeyActor: func(context.Context, string) (app.Actor, error) {
			if down.Load() {
				return app.Actor{}, errors.New("database /srv/secret/gt.db is unavailable")
			}
			return app.Actor{Name: "alice", Role: app.RoleReviewer}, nil
		},
		Home: func(context.Context, app.Actor, *lipgloss.Renderer) (*tui.Root, error) {
			return nil, errors.New("no screen")
		},
		Exec: func(context.Context, []string, io.Reader, io.Writer, io.Writer) int { return 0 },
		Log:  &logBuffer{},
	})
	if err != nil {
		t.Fatal(err)
	}
	addr := serveForTest(t, srv)
	dial := func() (banner string, err error) {
		c, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{User: "x", Auth: []gossh.AuthMethod{gossh.PublicKeys(key)},
			HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second,
			BannerCallback: func(m string) error { banner += m; return nil }})
		if err == nil {
			c.Close()
		}
		return banner, err
	}
	down.Store(true)
	if banner, err := dial(); err == nil || banner != "" {
		t.Fatalf("first connection while down: banner %q, err %v; want refused, no banner yet", banner, err)
	}
	banner, err := dial()
	if err == nil || !strings.Contains(banner, "keys cannot be checked at the moment") || strings.Contains(banner, "secret") {
		t.Fatalf("next connection while down: banner %q, err %v", banner, err)
	}
	down.Store(false)
	if _, err := dial(); err != nil {
		t.Fatalf("once the database is back: %v", err)
	}
	if banner, err := dial(); err != nil || banner != "" {
		t.Fatalf("after a lookup answered: banner %q, err %v", banner, err)
	}
}
