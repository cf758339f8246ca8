package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/wish"
	gossh "golang.org/x/crypto/ssh"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/tui"
)

// KeyActorFunc is the user a key fingerprint belongs to, as an actor; an
// error (any) refuses the key.
type KeyActorFunc func(ctx context.Context, fingerprint string) (app.Actor, error)

// HomeFunc builds the actor's home screen for a session with a terminal:
// styles come from r, the client's renderer (its colour profile).
type HomeFunc func(ctx context.Context, actor app.Actor, r *lipgloss.Renderer) (*tui.Root, error)

// ExecFunc runs one goldtrace command line for an SSH client, with the
// session's streams and a context carrying the actor, and returns the exit
// code. The server cannot import package main, so cmd/goldtrace hands its
// command tree over as this function.
type ExecFunc func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int

// Config is what a Server needs.
type Config struct {
	HostKey  gossh.Signer
	KeyActor KeyActorFunc
	Home     HomeFunc
	Exec     ExecFunc
	// Log receives one line per connection event (auth refusals, sessions);
	// nil discards them.
	Log io.Writer
	// AuthFailures refused keys from one host within AuthWindow block that
	// host for AuthWindow (defaults 10 and one minute).
	AuthFailures int
	AuthWindow   time.Duration
	// Version is sent in the SSH banner ("SSH-2.0-goldtrace-VERSION").
	Version string
	// AuthDelay: how long an unknown key from a blocked address waits for
	// its refusal (default one second).
	AuthDelay time.Duration
	// Limits; zero fields take DefaultLimits' values.
	Limits Limits
	// AuthFailed records unknown-key attempts (the audit log); nil: only
	// logged.
	AuthFailed func(ctx context.Context, fingerprint, what string)
	// Refused records what the server refused an authenticated key (a
	// session over the per-key limit, a command ended for a stalled
	// client); nil: only logged.
	Refused func(ctx context.Context, actor app.Actor, what string)
	// WatchKeys, when set, calls removed whenever any process removes keys
	// from the project (serve replicas on one PostgreSQL database), until
	// ctx ends, and says with up whether it hears them; it returns false
	// when it cannot watch (the timer, Limits.RevokeCheck, still runs).
	WatchKeys func(ctx context.Context, removed func(), up func(listening bool)) bool
	// Report tells the command lines that are reports (status, export …),
	// which the server admits through its report gate (Limits.Reports,
	// Limits.ReportShare); nil: none is.
	Report func(args []string) bool
}

// Server is goldtrace's SSH front door: public-key authentication against
// the users' keys, home screens for terminals, commands for exec requests.
type Server struct {
	cfg     Config
	ssh     *ssh.Server
	log     *slog.Logger
	limiter *authLimiter
	gate    *gate
	limits  Limits
	// reports admits report commands; keys tells when screens last had a
	// key (reviewers typing).
	reports *reportGate
	keys    keyClock
	// recheck asks the key watcher to check open sessions' keys now.
	recheck  chan struct{}
	quit     chan struct{}
	quitOnce sync.Once

	mu       sync.Mutex
	sessions map[*liveSession]struct{}
	// withheldLast is, per key, the last error Withheld logged.
	withheldMu   sync.Mutex
	withheldLast map[string]withheldLine
	closing      atomic.Bool
	// keysAway is when a key lookup last failed because the database was
	// away (unix nanoseconds; 0: the last lookup got an answer).
	keysAway atomic.Int64
	// hardStop ends exec commands that outlive the shutdown grace period.
	hardStop context.Context
	stopAll  context.CancelFunc
}

// New builds a server from cfg; it serves nothing until Serve.
func New(cfg Config) (*Server, error) {
	if cfg.HostKey == nil || cfg.KeyActor == nil || cfg.Home == nil || cfg.Exec == nil {
		return nil, errors.New("server: HostKey, KeyActor, Home and Exec are required")
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	if cfg.AuthFailures <= 0 {
		cfg.AuthFailures = 10
	}
	if cfg.AuthWindow <= 0 {
		cfg.AuthWindow = time.Minute
	}
	if cfg.AuthDelay <= 0 {
		cfg.AuthDelay = time.Second
	}
	cfg.Limits = cfg.Limits.withDefaults()
	s := &Server{
		limits:   cfg.Limits,
		gate:     &gate{byHost: map[string][]*pending{}, limits: cfg.Limits},
		recheck:  make(chan struct{}, 1),
		quit:     make(chan struct{}),
		cfg:      cfg,
		log:      slog.New(slog.NewTextHandler(cfg.Log, nil)),
		limiter:  newAuthLimiter(cfg.AuthFailures, cfg.AuthWindow, time.Now),
		sessions: map[*liveSession]struct{}{},
	}
	s.hardStop, s.stopAll = context.WithCancel(context.Background())
	s.reports = newReportGate(cfg.Limits.Reports, cfg.Limits.ReportShare, s.keys.typing)
	version := "goldtrace"
	if cfg.Version != "" {
		version += "-" + cfg.Version
	}
	srv, err := wish.NewServer(
		// The host key first: wish.NewServer writes a key file of its own
		// into the working directory when none is set.
		func(srv *ssh.Server) error { srv.AddHostKey(cfg.HostKey); return nil },
		wish.WithVersion(version),
		// Public keys only: no password or keyboard-interactive handler,
		// so clients are not offered those methods at all.
		wish.WithPublicKeyAuth(s.authenticate),
		wish.WithBannerHandler(s.banner),
		wish.WithMiddleware(s.handle),
	)
	if err != nil {
		return nil, fmt.Errorf("server: %w", err)
	}
	srv.IdleTimeout = cfg.Limits.IdleTimeout
	srv.ConnCallback = func(ctx ssh.Context, conn net.Conn) net.Conn {
		return &gatedConn{Conn: conn, p: s.gate.admit(ctx, conn)}
	}
	srv.ConnectionFailedCallback = func(conn net.Conn, err error) {
		if !errors.Is(err, io.EOF) {
			s.log.Info("connection failed", "from", conn.RemoteAddr().String(), "reason", err.Error())
		}
	}
	s.ssh = srv
	return s, nil
}

// HostKeyFingerprint is the host key's SHA256 fingerprint, for users to
// check on their first connection.
func (s *Server) HostKeyFingerprint() string {
	return gossh.FingerprintSHA256(s.cfg.HostKey.PublicKey())
}

// Listen opens addr for Serve; a port in use is one line that says so.
func Listen(addr string) (net.Listener, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Err != nil {
			return nil, fmt.Errorf("--listen %s: %s", addr, op.Err.Error())
		}
		return nil, fmt.Errorf("--listen %s: %w", addr, err)
	}
	return l, nil
}

// Note writes one line of what the server's process does beside its
// connections (a recovery file restored) to the server's log.
func (s *Server) Note(msg string) { s.log.Info(msg) }

// Withheld logs err as it is, which actor was told without where the
// database lives (app.App.Shown): the operator reads here what they were
// not told (App.OnWithheld). The same error told the same key again
// within withheldQuiet (a screen retrying every two seconds while the
// database is away) is logged once.
func (s *Server) Withheld(actor app.Actor, err error) {
	msg, now := err.Error(), time.Now()
	s.withheldMu.Lock()
	if s.withheldLast == nil {
		s.withheldLast = map[string]withheldLine{}
	}
	who := actor.Name + " " + actor.KeyFingerprint
	last, seen := s.withheldLast[who]
	again := seen && last.msg == msg && now.Sub(last.at) < withheldQuiet
	if !again {
		s.withheldLast[who] = withheldLine{msg: msg, at: now}
	}
	s.withheldMu.Unlock()
	if !again {
		s.log.Warn("error told without the database's place", "user", actor.Name, "role", string(actor.Role), "key", actor.KeyFingerprint, "error", msg)
	}
}

// withheldLine is the last error Withheld logged for a key, and when.
type withheldLine struct {
	msg string
	at  time.Time
}

// withheldQuiet is how long Withheld keeps from logging an error again.
const withheldQuiet = time.Minute

// Serve accepts connections on l until Shutdown; it returns nil then.
func (s *Server) Serve(l net.Listener) error {
	s.watchKeyRemovals()
	go s.watchKeys()
	// A Shutdown that came before the listener was tracked would leave it
	// accepting: closing it on quit ends Serve either way.
	served := make(chan struct{})
	defer close(served)
	go func() {
		select {
		case <-s.quit:
			l.Close()
		case <-served:
		}
	}()
	err := s.ssh.Serve(l)
	if s.closing.Load() || errors.Is(err, ssh.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown stops accepting connections, tells every open screen the server
// is going away and has it save its drafts and end, lets running commands
// finish, then closes every connection. When ctx ends first, commands still
// running are cancelled and their connections cut.
func (s *Server) Shutdown(ctx context.Context) error {
	s.closing.Store(true)
	s.quitOnce.Do(func() { close(s.quit) })
	listenersClosed := make(chan struct{})
	go func() {
		// Closes the listeners at once, then waits for connections, which
		// Close below ends.
		_ = s.ssh.Shutdown(ctx)
		close(listenersClosed)
	}()
	s.mu.Lock()
	for ls := range s.sessions {
		ls.shutdown()
	}
	s.mu.Unlock()
	finished := s.waitSessions(ctx)
	s.stopAll()
	// Connections with no session left (a client that keeps its connection
	// open after its session ended) are closed here.
	_ = s.ssh.Close()
	<-listenersClosed
	if !finished {
		return fmt.Errorf("shutdown: sessions still running after the grace period were cut")
	}
	return nil
}

// waitSessions waits until no session is open, or ctx ends (false).
func (s *Server) waitSessions(ctx context.Context) bool {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		s.mu.Lock()
		n := len(s.sessions)
		s.mu.Unlock()
		if n == 0 {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
}

// track registers an open session; an error says why it may not open
// (shutting down, the key's sessions at the limit).
func (s *Server) track(ls *liveSession) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing.Load() {
		return errors.New("the server is shutting down")
	}
	n := 0
	for other := range s.sessions {
		if other.fp == ls.fp {
			n++
		}
	}
	if n >= s.limits.SessionsPerKey {
		return fmt.Errorf("key %s has %d sessions open already, the most one key may have (goldtrace serve --sessions-per-key)", ls.fp, n)
	}
	s.sessions[ls] = struct{}{}
	return nil
}

func (s *Server) untrack(ls *liveSession) {
	s.mu.Lock()
	delete(s.sessions, ls)
	s.mu.Unlock()
}
