package server

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/charmbracelet/lipgloss"
	gossh "golang.org/x/crypto/ssh"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/tui"
)

func TestLineLimit(t *testing.T) {
	ok := strings.Repeat("a", 10) + "\n" + strings.Repeat("b", 10) + "\n" + "c"
	b, err := io.ReadAll(iotest.OneByteReader(&lineLimit{r: strings.NewReader(ok), max: 10}))
	if err != nil || string(b) != ok {
		t.Fatalf("lines of exactly the limit: %q, %v", b, err)
	}
	_, err = io.ReadAll(&lineLimit{r: strings.NewReader("short\n" + strings.Repeat("x", 11) + "\n"), max: 10})
	if !errors.Is(err, ErrLineTooLong) || !strings.Contains(err.Error(), "--max-line") {
		t.Fatalf("an 11-byte line over a limit of 10: %v", err)
	}
}

func TestLineCap(t *testing.T) {
	var out bytes.Buffer
	c := &lineCap{w: &out, max: 3}
	for i := range 10 {
		io.WriteString(c, "problem "+string(rune('0'+i))+"\n")
	}
	io.WriteString(c, "goldtrace: 10 invalid; nothing imported")
	c.finish()
	want := "problem 0\nproblem 1\nproblem 2\ngoldtrace: … 7 more lines not shown (goldtrace serve --max-error-lines)\ngoldtrace: 10 invalid; nothing imported\n"
	if out.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// testServer serves Exec for any key on 127.0.0.1, with limits.
func testServer(t *testing.T, limits Limits, exec ExecFunc) (addr string, key gossh.Signer) {
	t.Helper()
	return testServerWith(t, limits, exec, nil)
}

// testServerWith is testServer with report telling the report command
// lines (Config.Report).
func testServerWith(t *testing.T, limits Limits, exec ExecFunc, report func([]string) bool) (addr string, key gossh.Signer) {
	t.Helper()
	addr, key, _ = testServerLog(t, limits, exec, report)
	return addr, key
}

// testServerLog is testServerWith that also gives the server's log.
func testServerLog(t *testing.T, limits Limits, exec ExecFunc, report func([]string) bool) (addr string, key gossh.Signer, log *logBuffer) {
	t.Helper()
	log = &logBuffer{}
	_, hostPriv, _ := ed25519.GenerateKey(rand.Reader)
	host, _ := gossh.NewSignerFromKey(hostPriv)
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	key, _ = gossh.NewSignerFromKey(priv)
	fp := gossh.FingerprintSHA256(key.PublicKey())
	srv, err := New(Config{
		HostKey: host,
		KeyActor: func(_ context.Context, got string) (app.Actor, error) {
			if got != fp {
				return app.Actor{}, app.ErrNotFound
			}
			return app.Actor{Name: "alice", Role: app.RoleReviewer, Source: app.SourceSSH, KeyFingerprint: fp}, nil
		},
		Home: func(context.Context, app.Actor, *lipgloss.Renderer) (*tui.Root, error) {
			return nil, errors.New("no screen")
		},
		Exec:   exec,
		Limits: limits,
		Report: report,
		Log:    log,
	})
	if err != nil {
		t.Fatal(err)
	}
	return serveForTest(t, srv), key, log
}

// serveForTest serves srv on a port of 127.0.0.1 until the test ends, and
// returns its address.
func serveForTest(t *testing.T, srv *Server) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(l)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return l.Addr().String()
}

// logBuffer is a server's log, written and read at once.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func dialKey(t *testing.T, addr string, key gossh.Signer) *gossh.Client {
	t.Helper()
	c, err := gossh.Dial("tcp", addr, &gossh.ClientConfig{User: "x", Auth: []gossh.AuthMethod{gossh.PublicKeys(key)},
		HostKeyCallback: gossh.InsecureIgnoreHostKey(), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestStalledClientEndsCommand: a command writing to a client that reads
// nothing is ended after the stall timeout, and the command sees its
// context cancelled (it would otherwise hold a read snapshot open).
func TestStalledClientEndsCommand(t *testing.T) {
	cancelled := make(chan struct{})
	addr, key := testServer(t, Limits{StallTimeout: 500 * time.Millisecond}, func(ctx context.Context, _ []string, _ io.Reader, out, _ io.Writer) int {
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		for range 2000 { // 128 MB: far more than every window and buffer
			if _, err := out.Write(chunk); err != nil || ctx.Err() != nil {
				break
			}
		}
		if ctx.Err() != nil {
			close(cancelled)
		}
		return 0
	})
	c := dialKey(t, addr, key)
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.StdoutPipe(); err != nil { // never read
		t.Fatal(err)
	}
	var errb bytes.Buffer
	sess.Stderr = &errb
	if err := sess.Start("labels export"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the command was still writing 10 s after its client stopped reading")
	}
}

// TestSessionsPerKeyAndIdleTimeout: a key's sessions past the limit are
// refused; a connection with no traffic is closed after the idle timeout.
func TestSessionsPerKeyAndIdleTimeout(t *testing.T) {
	release, running := make(chan struct{}), make(chan struct{}, 2)
	addr, key := testServer(t, Limits{SessionsPerKey: 2, IdleTimeout: 700 * time.Millisecond}, func(ctx context.Context, _ []string, _ io.Reader, _, _ io.Writer) int {
		running <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return 0
	})
	c := dialKey(t, addr, key)
	for range 2 {
		s, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Start("status"); err != nil {
			t.Fatal(err)
		}
	}
	// Both run (so both are counted: a session is counted before its
	// command runs); a fixed pause raced them on a loaded machine.
	for range 2 {
		select {
		case <-running:
		case <-time.After(10 * time.Second):
			t.Fatal("two sessions' commands did not start within 10 s")
		}
	}
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	s.Stderr = &errb
	err = s.Run("status")
	var exit *gossh.ExitError
	if !errors.As(err, &exit) || exit.ExitStatus() != 2 || !strings.Contains(errb.String(), "--sessions-per-key") {
		t.Fatalf("a third session: %v %q", err, errb.String())
	}
	close(release)
	idle := dialKey(t, addr, key)
	done := make(chan error, 1)
	go func() { done <- idle.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("an idle connection was still open 5 s after a 700 ms idle timeout")
	}
}
