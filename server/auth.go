package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/charmbracelet/ssh"
	gossh "golang.org/x/crypto/ssh"

	"github.com/goldtrace/goldtrace/app"
)

// fingerprintExt is the Permissions extension that carries the fingerprint
// of the key a connection authenticated with. x/crypto's public-key
// callback also runs for keys a client offers and then does not use
// (CVE-2024-45337), so identity is never kept from the callback itself: the
// extension travels with the permissions of the key that was finally used,
// and each session checks it against Session.PublicKey().
const fingerprintExt = "goldtrace-key-fingerprint"

// authenticate is the public-key callback: the key must belong to a user.
// It runs before the client can send anything else, so an unknown key is
// refused before any data is read. Unknown keys count against their
// address: past the limit, each further unknown key from it is answered
// only after AuthDelay, while a registered key from the same address gets
// in at once — a client that offers another key first is not locked out.
func (s *Server) authenticate(ctx ssh.Context, key ssh.PublicKey) bool {
	host := remoteHost(ctx.RemoteAddr())
	fp := gossh.FingerprintSHA256(key)
	if _, err := s.lookupKey(ctx, fp); err != nil {
		if !errors.Is(err, app.ErrNotFound) {
			// Not an unknown key: the database is away (restarting, say)
			// longer than a lookup waits. Refused, not counted against
			// the address.
			s.log.Warn("auth refused: the key could not be looked up", "from", host, "key", fp, "reason", err.Error())
			return false
		}
		blocked := s.limiter.blocked(host)
		first, blockedNow := s.limiter.fail(host)
		s.log.Warn("auth refused: unknown key", "from", host, "key", fp, "ssh_user", ctx.User(), "host_blocked", blocked || blockedNow)
		switch {
		case blockedNow:
			s.log.Warn("unknown-key attempts over the limit: address blocked", "from", host,
				"failures", s.cfg.AuthFailures, "for", s.cfg.AuthWindow.String())
			s.authFailed(fp, fmt.Sprintf("from %s: %d unknown-key attempts within %s; its connections are cut at their first unknown key for %s",
				host, s.cfg.AuthFailures, s.cfg.AuthWindow, s.cfg.AuthWindow))
		case first:
			s.authFailed(fp, fmt.Sprintf("from %s: unknown key (further attempts from this address within %s are counted, not listed)", host, s.cfg.AuthWindow))
		}
		if blocked {
			// Slow the address down, not its users: a registered key
			// offered next on this connection still gets in.
			select {
			case <-time.After(s.cfg.AuthDelay):
			case <-ctx.Done():
			}
		}
		return false
	}

	perms := ctx.Permissions()
	if perms.Extensions == nil {
		perms.Extensions = map[string]string{}
	}
	perms.Extensions[fingerprintExt] = fp
	return true
}

// sessionActor is the user of the key this session's connection really
// authenticated with, looked up again now (a key removed since the
// handshake is refused).
func (s *Server) sessionActor(sess ssh.Session) (app.Actor, error) {
	fp := sess.Permissions().Extensions[fingerprintExt]
	pk := sess.PublicKey()
	if fp == "" || pk == nil || gossh.FingerprintSHA256(pk) != fp {
		return app.Actor{}, fmt.Errorf("the key this connection authenticated with is not the key it was accepted for")
	}
	actor, err := s.lookupKey(sess.Context(), fp)
	if err != nil {
		if !errors.Is(err, app.ErrNotFound) {
			return app.Actor{}, fmt.Errorf("cannot check key %s now: %w", fp, err)
		}
		return app.Actor{}, fmt.Errorf("key %s no longer belongs to a user", fp)
	}
	actor.Source = app.SourceSSH
	actor.KeyFingerprint = fp
	return actor, nil
}

// keyLookupPatience is how long a key lookup rides out a database that is
// away (a restart, a failover) before the key is refused.
var keyLookupPatience = 5 * time.Second

// lookupKey is Config.KeyActor, tried again while it fails for another
// reason than an unknown key (app.ErrNotFound, final), for up to
// keyLookupPatience.
func (s *Server) lookupKey(ctx context.Context, fp string) (app.Actor, error) {
	deadline := time.Now().Add(keyLookupPatience)
	for wait := 50 * time.Millisecond; ; wait = min(2*wait, time.Second) {
		actor, err := s.cfg.KeyActor(ctx, fp)
		if err == nil || errors.Is(err, app.ErrNotFound) {
			s.keysAway.Store(0)
			return actor, err
		}
		if time.Now().Add(wait).After(deadline) {
			s.keysAway.Store(time.Now().UnixNano())
			return actor, err
		}
		select {
		case <-ctx.Done():
			return actor, err
		case <-time.After(wait):
		}
	}
}

// keysAwayBanner is how long after a key lookup failed because the
// database was away connecting clients are told so (banner).
const keysAwayBanner = time.Minute

// bannerKeysAway is the banner then: a key refused meanwhile is not
// unknown, and "Permission denied (publickey)" alone said it was.
const bannerKeysAway = "goldtrace: keys cannot be checked at the moment (the project's database is unavailable), so yours may be refused; try again in a minute, and tell your lead if it goes on\n"

// banner is what a client is shown before it authenticates: nothing,
// unless a key lookup failed within keysAwayBanner because the database
// was away. It says nothing of where the database lives.
func (s *Server) banner(ssh.Context) string {
	if t := s.keysAway.Load(); t != 0 && time.Since(time.Unix(0, t)) < keysAwayBanner {
		return bannerKeysAway
	}
	return ""
}

func remoteHost(addr net.Addr) string {
	if addr == nil {
		return ""
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	return host
}

// authLimiter counts refused keys per host: limit failures within window
// block the host for window.
type authLimiter struct {
	mu     sync.Mutex
	limit  int
	window time.Duration
	now    func() time.Time
	hosts  map[string]*hostFailures
}

type hostFailures struct {
	n            int
	since        time.Time
	blockedUntil time.Time
}

func newAuthLimiter(limit int, window time.Duration, now func() time.Time) *authLimiter {
	return &authLimiter{limit: limit, window: window, now: now, hosts: map[string]*hostFailures{}}
}

func (l *authLimiter) blocked(host string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	h := l.hosts[host]
	return h != nil && l.now().Before(h.blockedUntil)
}

// authFailed records unknown-key attempts in the audit log, without
// holding up the handshake.
func (s *Server) authFailed(fp, what string) {
	if s.cfg.AuthFailed == nil {
		return
	}
	go s.cfg.AuthFailed(context.Background(), fp, what)
}

// fail records a refused key from host and reports whether it is the
// host's first in its window and whether it put the host over the limit
// just now.
func (l *authLimiter) fail(host string) (first, blockedNow bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.forgetOld(now)
	h := l.hosts[host]
	if h == nil || now.Sub(h.since) > l.window {
		first = h == nil || !now.Before(h.blockedUntil)
		h = &hostFailures{since: now, blockedUntil: blockedUntil(h)}
		l.hosts[host] = h
	}
	h.n++
	if h.n >= l.limit && !now.Before(h.blockedUntil) {
		h.blockedUntil = now.Add(l.window)
		h.n, h.since = 0, h.blockedUntil
		return first, true
	}
	return first, false
}

func blockedUntil(h *hostFailures) time.Time {
	if h == nil {
		return time.Time{}
	}
	return h.blockedUntil
}

// forgetOld drops hosts with nothing recent, so the map stays small.
func (l *authLimiter) forgetOld(now time.Time) {
	if len(l.hosts) < 1024 {
		return
	}
	for host, h := range l.hosts {
		if now.Sub(h.since) > l.window && !now.Before(h.blockedUntil) {
			delete(l.hosts, host)
		}
	}
}
