package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/server"
	"github.com/goldtrace/goldtrace/store"
)

// TestServeIdleConnectionsDoNotLockOutUsers: connections that never
// authenticate are closed after the handshake timeout, and past the cap
// the oldest are closed at once, so a user logging in meanwhile gets in.
// The idle connections are opened one after the other, each once the
// server has taken it (its version line came, or it was closed), so which
// of them the caps close is decided by that order, not by timing; the
// handshake timeout is well beyond what a handshake takes under the race
// detector on a loaded machine.
func TestServeIdleConnectionsDoNotLockOutUsers(t *testing.T) {
	const timeout, perHost, idleConns = 2 * time.Second, 8, 40
	ts := startTeamServerWith(t, server.Limits{HandshakeTimeout: timeout, MaxUnauthenticatedPerHost: perHost, MaxUnauthenticated: 16}, 10, 2)
	type idleConn struct {
		dialed time.Time
		closed chan time.Time // when the server closed it
	}
	var idle []idleConn
	for range idleConns {
		c, err := net.Dial("tcp", ts.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ic := idleConn{dialed: time.Now(), closed: make(chan time.Time, 1)}
		taken := make(chan struct{})
		go func() {
			c.SetReadDeadline(time.Now().Add(timeout + 10*time.Second))
			buf, seen := make([]byte, 512), false
			for {
				n, err := c.Read(buf)
				if !seen && (n > 0 || err != nil) {
					seen = true
					close(taken)
				}
				if err != nil {
					if ne, ok := err.(net.Error); ok && ne.Timeout() {
						close(ic.closed)
						return
					}
					ic.closed <- time.Now()
					return
				}
			}
		}()
		<-taken
		idle = append(idle, ic)
	}
	if out, errOut, code := ts.run("alice", "", "whoami"); code != 0 || !strings.Contains(out, "alice") {
		t.Fatalf("whoami beside %d idle connections: exit %d %q %q", idleConns, code, out, errOut)
	}
	// Every idle connection is closed by the server: those the cap
	// evicted (all but the newest) as the newer ones came, long before
	// their handshake timeout; the rest at it.
	for i, ic := range idle {
		at, ok := <-ic.closed
		if !ok {
			t.Fatalf("idle connection %d was still open %s after it was made", i, timeout+10*time.Second)
		}
		if i < idleConns-perHost && at.Sub(ic.dialed) >= timeout {
			t.Errorf("idle connection %d was closed %s after it was made: by its handshake timeout, not by the cap", i, at.Sub(ic.dialed).Round(time.Millisecond))
		}
	}
}

// TestServePTYClamped: a 10000×10000 terminal is drawn at most 500×200,
// on the request and on a resize.
func TestServePTYClamped(t *testing.T) {
	ts := startTeamServer(t, 10, 2)
	c := ts.client("alice")
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestPty("xterm-256color", 10000, 10000, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	p := &ptyClient{t: t, sess: sess, done: make(chan error, 1)}
	p.in, _ = sess.StdinPipe()
	sess.Stdout, sess.Stderr = p, p
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- sess.Wait() }()
	p.waitFor("alice")
	if err := sess.WindowChange(10000, 10000); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	// Unclamped, one frame would be 100 M cells.
	if n := len(p.screen()); n > 2<<20 {
		t.Fatalf("the screen sent %d bytes for a 10000×10000 terminal; want it clamped (under 2 MB)", n)
	}
	p.send("\x03")
	p.exit()
}

// TestServeStdinAndErrorLimits: a line over --max-line is one clear error
// and nothing is imported; an error flood comes back as --max-error-lines
// lines, a count of the rest and the command's own error.
func TestServeStdinAndErrorLimits(t *testing.T) {
	ts := startTeamServerWith(t, server.Limits{MaxLine: 1 << 20, MaxErrorLines: 5}, 10, 3)
	huge := strings.Repeat("x", 3<<20) + "\n"
	_, errOut, code := ts.run("alice", huge, "labels", "import", "-")
	if code != 2 || !strings.Contains(errOut, "longer than 1 MiB") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
		t.Fatalf("a 3 MiB line: exit %d, stderr %.300q; want one line saying it is longer than 1 MiB", code, errOut)
	}
	if got := ts.labelsOf("alice"); len(got) != 0 {
		t.Fatalf("labels stored after a refused import: %d", len(got))
	}
	junk := strings.Repeat("not json\n", 200)
	_, errOut, code = ts.run("alice", junk, "labels", "import", "-")
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if code != 2 || len(lines) > 7 || !strings.Contains(errOut, "more lines not shown") || !strings.Contains(lines[len(lines)-1], "nothing imported") {
		t.Fatalf("200 junk lines: exit %d, %d error lines: %q", code, len(lines), errOut)
	}
	// The rationale limit is the label screen's, over labels import too.
	b, _ := json.Marshal(review.Label{Item: ts.items[0], Reviewer: "alice", Decision: review.DecisionNoCall,
		Calls: []review.LabelCall{}, Rationale: strings.Repeat("r", review.MaxRationale+1)})
	if _, errOut, code := ts.run("alice", string(b)+"\n", "labels", "import", "-"); code != 2 || !strings.Contains(errOut, "at most 10000") {
		t.Fatalf("an over-long rationale: exit %d %q", code, errOut)
	}
}

// TestServeRevokedKeyMidCommand: a labels import connected before the
// key's removal is ended, and nothing it sends after is stored.
func TestServeRevokedKeyMidCommand(t *testing.T) {
	ts := startTeamServerWith(t, server.Limits{RevokeCheck: 200 * time.Millisecond}, 10, 3)
	c := ts.client("alice")
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	in, _ := sess.StdinPipe()
	var errb bytes.Buffer
	sess.Stderr = &errb
	if err := sess.Start("labels import -"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- sess.Wait() }()
	label := func(item string) string {
		b, _ := json.Marshal(review.Label{Item: item, Reviewer: "alice", Decision: review.DecisionNoCall, Calls: []review.LabelCall{}, Rationale: "r"})
		return string(b) + "\n"
	}
	io.WriteString(in, label(ts.items[0]))
	fp := gossh.FingerprintSHA256(ts.keys["alice"].PublicKey())
	if _, errOut, code := ts.run("carol", "", "users", "key", "remove", "alice", fp); code != 0 {
		t.Fatal(errOut)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the removed key's command was still running 5 s after the removal")
	}
	io.WriteString(in, label(ts.items[1]))
	in.Close()
	if got := ts.labelsOf("alice"); len(got) != 0 {
		t.Fatalf("%d labels stored under a removed key", len(got))
	}
	if !strings.Contains(errb.String(), "was removed") {
		t.Errorf("stderr %q; want it to say the key was removed", errb.String())
	}
}

// TestStoreRefusesWriteOfRemovedKey: the check inside the write
// transaction, for a write that raced the removal past every earlier check.
func TestStoreRefusesWriteOfRemovedKey(t *testing.T) {
	ts := startTeamServer(t, 10, 2)
	ctx := store.WithAudit(context.Background(), store.AuditEntry{Actor: "alice", Role: "reviewer", Source: "ssh",
		KeyFingerprint: "SHA256:not-a-key-of-alice", Action: "label.submit", Object: "x"})
	_, err := ts.st.SubmitLabel(ctx, review.Label{Item: ts.items[0], Reviewer: "alice", Decision: review.DecisionNoCall, Calls: []review.LabelCall{}})
	if err == nil || !strings.Contains(err.Error(), "key was removed") {
		t.Fatalf("submit under a removed key: %v", err)
	}
	if got := ts.labelsOf("alice"); len(got) != 0 {
		t.Fatal("the label was stored")
	}
}

// TestServeUnknownKeysDoNotLockOutValidKeys: past the unknown-key limit an
// address is slowed, but a registered key — also one offered after an
// unknown one — still gets in; leads see the attempts in audit.
func TestServeUnknownKeysDoNotLockOutValidKeys(t *testing.T) {
	ts := startTeamServer(t, 10, 2)
	for range 15 {
		if c, err := ts.dial(gossh.PublicKeys(ts.keys["eve"])); err == nil {
			c.Close()
			t.Fatal("an unknown key got in")
		}
	}
	c, err := ts.dial(gossh.PublicKeys(ts.keys["eve"], ts.keys["alice"]))
	if err != nil {
		t.Fatalf("alice's key after eve's, from a blocked address: %v", err)
	}
	c.Close()
	if out, errOut, code := ts.run("carol", "", "audit", "--action", "ssh.auth"); code != 0 || !strings.Contains(out, "unknown key") || !strings.Contains(out, "unknown-key attempts") {
		t.Fatalf("audit --action ssh.auth: exit %d %q %q", code, out, errOut)
	}
}
