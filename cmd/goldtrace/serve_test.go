package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/server"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace/synth"
)

// teamServer is goldtrace serve in-process on 127.0.0.1 with a random port,
// over a real temp-file project, with the same key lookup, home screens and
// command tree the serve command wires up. Clients are real
// golang.org/x/crypto/ssh clients.
type teamServer struct {
	t       testing.TB
	dir, db string
	addr    string
	st      *store.Store
	srv     *server.Server
	hostKey gossh.PublicKey
	keys    map[string]gossh.Signer // by user name; "eve" has no user
	priv    map[string]ed25519.PrivateKey
	traces  []byte   // the synthetic traces imported
	items   []string // the sampled items, in plan order
	served  chan error
	stopped bool
	// limits are the server's (zero fields: the defaults).
	limits server.Limits
	// seedBin, when set, is the goldtrace binary seedTeam runs to make the
	// project (an older build's, for its own schema); else it runs the
	// command tree in this process.
	seedBin string
	// busy is the served store's busy timeout (0: the default); log, when
	// set, receives the server's log (what serve prints on stderr).
	busy time.Duration
	log  io.Writer
}

// newKey is a fresh ed25519 client key.
func newKey(t testing.TB) gossh.Signer {
	s, _ := newKeyPair(t)
	return s
}

func newKeyPair(t testing.TB) (gossh.Signer, ed25519.PrivateKey) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s, priv
}

func keyLineOf(s gossh.Signer, comment string) string {
	return strings.TrimSpace(string(gossh.MarshalAuthorizedKey(s.PublicKey()))) + " " + comment
}

// startTeamServer makes a project (synthetic traces, reviewers alice and
// bob, lead carol, nItems items sampled for alice and bob, each user with a
// key) and serves it.
func startTeamServer(t testing.TB, nTraces, nItems int, reviewers ...string) *teamServer {
	t.Helper()
	return startTeamServerWith(t, server.Limits{}, nTraces, nItems, reviewers...)
}

// startTeamServerWith is startTeamServer with the server's limits.
func startTeamServerWith(t testing.TB, limits server.Limits, nTraces, nItems int, reviewers ...string) *teamServer {
	t.Helper()
	if len(reviewers) == 0 {
		reviewers = []string{"alice", "bob"}
	}
	ts := &teamServer{t: t, dir: t.TempDir(), limits: limits}
	seedTeam(t, ts, nTraces, nItems, reviewers)
	ts.serve(newKey(t))
	return ts
}

// serve opens ts.db and serves it in-process as serve does, with host as
// the host key, on a random port of 127.0.0.1, until the test ends.
func (ts *teamServer) serve(host gossh.Signer) {
	t := ts.t
	t.Helper()
	st, err := store.OpenWith(context.Background(), ts.db, store.Options{BusyTimeout: ts.busy})
	if err != nil {
		t.Fatal(err)
	}
	ts.st = st
	be := app.New(st)
	ts.hostKey = host.PublicKey()
	cfg := serverConfig(be, siteOf(ts.db), host, ts.limits)
	cfg.Log = ts.log
	ts.srv, err = server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	be.OnWithheld(ts.srv.Withheld) // as serve does
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts.addr = l.Addr().String()
	ts.served = make(chan error, 1)
	go func() { ts.served <- ts.srv.Serve(l) }()
	t.Cleanup(func() {
		ts.shutdown(5 * time.Second)
		st.Close()
	})
}

// seedTeam makes the project a team server serves, in ts.dir: synthetic
// traces, lead carol and the reviewers, nItems items sampled for the
// reviewers (two each), every user with a key, and eve with a key that is
// nobody's.
func seedTeam(t testing.TB, ts *teamServer, nTraces, nItems int, reviewers []string) {
	t.Helper()
	if ts.db == "" {
		ts.db = filepath.Join(ts.dir, "gt.db")
	}
	ts.keys, ts.priv = map[string]gossh.Signer{}, map[string]ed25519.PrivateKey{}
	var buf bytes.Buffer
	if _, err := synth.Write(&buf, synth.Options{Seed: 7, N: nTraces}); err != nil {
		t.Fatal(err)
	}
	ts.traces = buf.Bytes()
	must := func(stdin string, args ...string) string {
		t.Helper()
		out, errOut, code := runSeed(ts, stdin, args...)
		if code != 0 {
			t.Fatalf("goldtrace %s: exit %d: %s", strings.Join(args, " "), code, errOut)
		}
		return out
	}
	must(string(ts.traces), "import", "-")
	for _, u := range append([]string{"carol"}, reviewers...) {
		role := "reviewer"
		if u == "carol" {
			role = "lead"
		}
		ts.keys[u], ts.priv[u] = newKeyPair(t)
		args := []string{"users", "add", u, "--role", role, "--key", keyLineOf(ts.keys[u], u+"@laptop")}
		if u != "carol" {
			args = append(args, "--as", "carol") // the first lead needs no identity
		}
		must("", args...)
	}
	ts.keys["eve"], ts.priv["eve"] = newKeyPair(t)
	out := must("", "sample", "--n", fmt.Sprint(nItems), "--seed", "3", "--reviewers", strings.Join(reviewers, ","), "--batch", "b1", "--json")
	var plan app.SamplePlan
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		t.Fatal(err)
	}
	for _, it := range plan.Items {
		ts.items = append(ts.items, it.ID)
	}

}

// runSeed runs one command of seedTeam's: in this process, or as
// ts.seedBin when set.
func runSeed(ts *teamServer, stdin string, args ...string) (string, string, int) {
	if ts.seedBin == "" {
		out, errOut, code, _ := runCLI(ts.db, stdin, args...)
		return out, errOut, code
	}
	cmd := exec.Command(ts.seedBin, append([]string{"--db", ts.db}, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(stdin), &out, &errOut
	err := cmd.Run()
	code := 0
	if err != nil {
		code = -1
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		}
		errOut.WriteString(err.Error())
	}
	return out.String(), errOut.String(), code
}

// shutdown is what SIGTERM does: Shutdown, then Serve returns.
func (ts *teamServer) shutdown(grace time.Duration) error {
	if ts.stopped {
		return nil
	}
	ts.stopped = true
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := ts.srv.Shutdown(ctx)
	if serr := <-ts.served; serr != nil {
		ts.t.Errorf("Serve returned %v after Shutdown", serr)
	}
	return err
}

// dial connects with the given client auth methods.
func (ts *teamServer) dial(auth ...gossh.AuthMethod) (*gossh.Client, error) {
	return gossh.Dial("tcp", ts.addr, &gossh.ClientConfig{
		User:            "goldtrace",
		Auth:            auth,
		HostKeyCallback: gossh.FixedHostKey(ts.hostKey),
		Timeout:         10 * time.Second,
	})
}

// client connects as user's key, failing the test when it cannot.
func (ts *teamServer) client(user string) *gossh.Client {
	ts.t.Helper()
	c, err := ts.dial(gossh.PublicKeys(ts.keys[user]))
	if err != nil {
		ts.t.Fatalf("ssh as %s: %v", user, err)
	}
	ts.t.Cleanup(func() { c.Close() })
	return c
}

// run execs one command line as user, stdin as given, and returns stdout,
// stderr and the exit status.
func (ts *teamServer) run(user, stdin string, args ...string) (string, string, int) {
	ts.t.Helper()
	c := ts.client(user)
	return execOn(ts.t, c, stdin, args...)
}

func execOn(t testing.TB, c *gossh.Client, stdin string, args ...string) (string, string, int) {
	t.Helper()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	var out, errb bytes.Buffer
	sess.Stdout, sess.Stderr = &out, &errb
	sess.Stdin = strings.NewReader(stdin)
	err = sess.Run(strings.Join(args, " "))
	code := 0
	var exit *gossh.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitStatus()
	} else if err != nil {
		t.Fatalf("ssh %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errb.String(), code
}

func TestServeKeyAuth(t *testing.T) {
	ts := startTeamServer(t, 20, 4)
	if out, errOut, code := ts.run("alice", "", "status"); code != 0 || !strings.Contains(out, "assignments") {
		t.Fatalf("alice status: exit %d, %q %q", code, out, errOut)
	}
	refused := func(what string, auth ...gossh.AuthMethod) {
		t.Helper()
		c, err := ts.dial(auth...)
		if err == nil {
			c.Close()
			t.Fatalf("%s: connected, want refused", what)
		}
		if !strings.Contains(err.Error(), "unable to authenticate") {
			t.Fatalf("%s: %v, want an authentication failure", what, err)
		}
	}
	refused("unknown key", gossh.PublicKeys(ts.keys["eve"]))
	refused("password", gossh.Password("hunter2"))
	refused("keyboard-interactive", gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) {
		return []string{"hunter2"}, nil
	}))
	// An unknown key offered first does not stop a known one after it.
	c, err := ts.dial(gossh.PublicKeys(ts.keys["eve"], ts.keys["bob"]))
	if err != nil {
		t.Fatalf("eve's key then bob's: %v", err)
	}
	c.Close()

	// A revoked key is refused from then on; the user's other keys work.
	alice2 := newKey(t)
	if _, errOut, code := ts.run("carol", keyLineOf(alice2, "alice@desktop")+"\n", "users", "key", "add", "alice", "-"); code != 0 {
		t.Fatalf("users key add over ssh: %s", errOut)
	}
	fp := gossh.FingerprintSHA256(ts.keys["alice"].PublicKey())
	if out, errOut, code := ts.run("carol", "", "users", "key", "remove", "alice", fp); code != 0 || !strings.Contains(out, "removed") {
		t.Fatalf("users key remove over ssh: exit %d %q %q", code, out, errOut)
	}
	refused("revoked key", gossh.PublicKeys(ts.keys["alice"]))
	c, err = ts.dial(gossh.PublicKeys(alice2))
	if err != nil {
		t.Fatalf("alice's remaining key: %v", err)
	}
	c.Close()

	// A removed user's key is refused, also on a connection opened before.
	bob := ts.client("bob")
	if _, errOut, code := ts.run("carol", "", "users", "remove", "bob"); code != 0 {
		t.Fatalf("users remove bob: %s", errOut)
	}
	refused("removed user's key", gossh.PublicKeys(ts.keys["bob"]))
	_, errOut, code := execOn(t, bob, "", "status")
	if code != 2 || !strings.Contains(errOut, "no longer belongs to a user") {
		t.Fatalf("a session on bob's earlier connection: exit %d %q, want refused", code, errOut)
	}
}

func TestServeExec(t *testing.T) {
	ts := startTeamServer(t, 40, 12)
	// Each reviewer imports their own labels from stdin; some disagree.
	truth := map[string]synth.Expected{}
	for _, c := range synth.GenerateCases(synth.Options{Seed: 7, N: 40}) {
		for _, e := range c.Expected {
			truth[e.ItemID] = e
		}
	}
	for _, r := range []string{"alice", "bob"} {
		var in bytes.Buffer
		for i, id := range ts.items {
			l := app.DemoLabel(synth.SimulatedLabel(truth[id], r, 5), "", i)
			l.Rationale = "per the guide"
			b, _ := json.Marshal(l)
			in.Write(append(b, '\n'))
		}
		if out, errOut, code := ts.run(r, in.String(), "labels", "import", "-"); code != 0 {
			t.Fatalf("%s: labels import - over ssh: exit %d %q %q", r, code, out, errOut)
		}
	}
	var stored int
	if err := ts.st.Labels(context.Background(), store.LabelFilter{}, func(review.Label) error { stored++; return nil }); err != nil {
		t.Fatal(err)
	}
	if want := 2 * len(ts.items); stored != want {
		t.Fatalf("labels stored after two imports over ssh: %d, want %d", stored, want)
	}

	// import - reads traces from the client's stdin.
	var more bytes.Buffer
	if _, err := synth.Write(&more, synth.Options{Seed: 99, N: 5, Prefix: "more_"}); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := ts.run("carol", more.String(), "import", "-"); code != 0 || !strings.Contains(out, "imported 5 traces") {
		t.Fatalf("import - over ssh: exit %d %q %q", code, out, errOut)
	}

	// The lead exports; datasets get streams the version's exact bytes.
	if out, errOut, code := ts.run("carol", "", "export", "gold", "-m", "first", "--allow-partial"); code != 0 {
		t.Fatalf("export over ssh: exit %d %q %q", code, out, errOut)
	}
	_, content, manifest, err := ts.st.DatasetFiles(context.Background(), "gold", 1)
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := ts.run("carol", "", "datasets", "get", "gold@v1")
	if code != 0 || out != string(content) {
		t.Fatalf("datasets get gold@v1: exit %d, %d bytes (want %d) %q", code, len(out), len(content), errOut)
	}
	if out, _, _ := ts.run("carol", "", "datasets", "get", "gold@v1", "--manifest"); out != string(manifest) {
		t.Fatalf("datasets get --manifest: %q", out)
	}

	// assign runs on the server only, for a lead too.
	if out, errOut, code := ts.run("carol", "", "assign", "--release", "--from", "bob", "--to", "alice"); code != 2 || !strings.Contains(errOut, "not available over SSH") {
		t.Fatalf("assign --release over ssh as the lead: exit %d %q %q", code, out, errOut)
	}

	// Bad command lines: one line on stderr, exit 2, nothing run.
	for _, tc := range []struct {
		args []string
		want string
		as   string
	}{
		{[]string{"status", "--as", "carol"}, "--as is not accepted over SSH: you are alice (ssh key SHA256:", ""},
		{[]string{"--db", "/tmp/other.db", "status"}, "--db is not accepted over SSH", ""},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`, ""},
		{[]string{"import", "/etc/passwd"}, "reads only your stdin", "carol"},
		{[]string{"import", "/etc/passwd"}, "only a lead may import traces", ""},
		{[]string{"import", "s3://bucket/exports"}, "reads only your stdin", "carol"},
		{[]string{"import", "postgres://phoenix@db.internal/phoenix"}, "reads only your stdin", "carol"},
		{[]string{"import", "-", "--s3-endpoint", "http://169.254.169.254"}, "--s3-endpoint is not available over SSH", "carol"},
		{[]string{"sample", "--n", "1", "--from", "/srv/exports/obs.parquet"}, "reads only your stdin", "carol"},
		{[]string{"sample", "--n", "1", "--from=s3://bucket/exports"}, "reads only your stdin", "carol"},
		{[]string{"sample", "--n", "1", "--from", "postgres://phoenix@db.internal/phoenix", "--format", "phoenix"}, "reads only your stdin", "carol"},
		{[]string{"sample", "--n", "1", "--from", "-", "--s3-endpoint=http://10.0.0.1:9000"}, "--s3-endpoint is not available over SSH", "carol"},
		{[]string{"labels", "export", "--out", "/tmp/x.jsonl"}, "--out is not available over SSH", ""},
		{[]string{"label"}, "opens a screen", ""},
		{[]string{"serve"}, "not available over SSH", ""},
		{[]string{"datasets", "get", "gold@v9"}, "no such version", ""},
		{[]string{"score", "--gold", "/etc/passwd"}, "--gold /etc/passwd: over SSH give a dataset version", ""},
		{[]string{"export", "gold@v1"}, "over SSH fetch a version with datasets get gold@v1", "carol"},
		{[]string{"score", "--gold", "gold@v1", "--judge", "args", "--judge-model", "m-2024-01-01"}, "--judge is not available over SSH", ""},
		{[]string{"users", "add", "mallory", "--key", "/root/.ssh/id_ed25519.pub"}, "give - and the key on stdin", "carol"},
		{[]string{"assign", "--release", "--from", "bob", "--to", "alice"}, "not available over SSH", ""},
	} {
		as := tc.as
		if as == "" {
			as = "alice"
		}
		out, errOut, code := ts.run(as, "", tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("ssh -- %s: exit %d, stderr %q (stdout %q); want exit 2 and one line with %q",
				strings.Join(tc.args, " "), code, errOut, out, tc.want)
		}
	}
}

// ptyClient is a terminal session as ssh -t opens it: 80×24, xterm-256color.
type ptyClient struct {
	t    testing.TB
	sess *gossh.Session
	in   io.WriteCloser
	mu   sync.Mutex
	out  bytes.Buffer
	done chan error
}

func (ts *teamServer) openScreen(user string) *ptyClient {
	ts.t.Helper()
	c := ts.client(user)
	sess, err := c.NewSession()
	if err != nil {
		ts.t.Fatal(err)
	}
	if err := sess.RequestPty("xterm-256color", 24, 80, gossh.TerminalModes{}); err != nil {
		ts.t.Fatal(err)
	}
	p := &ptyClient{t: ts.t, sess: sess, done: make(chan error, 1)}
	p.in, err = sess.StdinPipe()
	if err != nil {
		ts.t.Fatal(err)
	}
	sess.Stdout = p
	sess.Stderr = p
	if err := sess.Shell(); err != nil {
		ts.t.Fatal(err)
	}
	go func() { p.done <- sess.Wait() }()
	return p
}

func (p *ptyClient) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

func (p *ptyClient) screen() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// waitFor waits until the output holds text.
func (p *ptyClient) waitFor(text string) {
	p.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(p.screen(), text) {
		if time.Now().After(deadline) {
			p.t.Fatalf("screen never showed %q; last output:\n%s", text, tail(p.screen(), 2000))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (p *ptyClient) send(keys string) {
	p.t.Helper()
	if _, err := p.in.Write([]byte(keys)); err != nil {
		p.t.Fatal(err)
	}
}

// exit waits for the session to end and returns its exit status.
func (p *ptyClient) exit() int {
	p.t.Helper()
	select {
	case err := <-p.done:
		var exit *gossh.ExitError
		if errors.As(err, &exit) {
			return exit.ExitStatus()
		}
		if err != nil {
			p.t.Fatalf("session: %v", err)
		}
		return 0
	case <-time.After(15 * time.Second):
		p.t.Fatalf("session did not end; last output:\n%s", tail(p.screen(), 2000))
		return -1
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// waitUntil polls cond (a store read) until it holds.
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (ts *teamServer) labelsOf(reviewer string) []review.Label {
	var out []review.Label
	err := ts.st.Labels(context.Background(), store.LabelFilter{Reviewer: reviewer}, func(l review.Label) error {
		out = append(out, l)
		return nil
	})
	if err != nil {
		ts.t.Fatal(err)
	}
	return out
}

func TestServeLabelScreenOverSSH(t *testing.T) {
	ts := startTeamServer(t, 20, 3)
	p := ts.openScreen("alice")
	p.waitFor("Your label")
	p.send("\r") // choose the first option, (no tool); focus moves to Why
	p.send("answered in words over ssh")
	p.send("\x13") // ctrl+s submits
	waitUntil(t, "alice's label", func() bool { return len(ts.labelsOf("alice")) == 1 })
	l := ts.labelsOf("alice")[0]
	if l.Reviewer != "alice" || l.Decision != review.DecisionNoCall || l.Rationale != "answered in words over ssh" {
		t.Fatalf("stored label: %+v", l)
	}
	if got := ts.labelsOf("bob"); len(got) != 0 {
		t.Fatalf("bob has labels he never made: %+v", got)
	}
	p.waitFor("2/3")
	p.send("\x03") // ctrl+c ends the session
	if code := p.exit(); code != 0 {
		t.Fatalf("exit status after ctrl+c: %d", code)
	}

	// A lead lands on the dashboard; a ci-less reviewer never does.
	lead := ts.openScreen("carol")
	lead.waitFor("Preview")
	lead.send("\x03")
	if code := lead.exit(); code != 0 {
		t.Fatalf("lead's exit status: %d", code)
	}
}

func TestServeShutdownWithOpenSession(t *testing.T) {
	ts := startTeamServer(t, 20, 3)
	p := ts.openScreen("alice")
	p.waitFor("Your label")
	p.send("\r")
	p.send("half a thought")
	p.waitFor("half a thought")
	if err := ts.shutdown(10 * time.Second); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if code := p.exit(); code != 0 {
		t.Fatalf("screen's exit status on shutdown: %d", code)
	}
	if !strings.Contains(p.screen(), "the server is shutting down; your work is saved") {
		t.Fatalf("the session was not told; last output:\n%s", tail(p.screen(), 1000))
	}
	body, _, err := ts.st.Draft(context.Background(), ts.items[0], "alice")
	if err != nil || !strings.Contains(string(body), "half a thought") {
		t.Fatalf("draft after shutdown: %q, %v", body, err)
	}
	if _, err := ts.dial(gossh.PublicKeys(ts.keys["alice"])); err == nil {
		t.Fatal("a connection after shutdown was accepted")
	}
}

// TestServeWithOpenSSH drives the server with the real OpenSSH client, as a
// reviewer would.
func TestServeWithOpenSSH(t *testing.T) {
	sshBin, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("no OpenSSH client (ssh) on PATH: install openssh-client to run this test")
	}
	ts := startTeamServer(t, 20, 3)
	keyFile := filepath.Join(ts.dir, "alice_ed25519")
	writePrivateKey(t, keyFile, ts.priv["alice"])
	eveFile := filepath.Join(ts.dir, "eve_ed25519")
	writePrivateKey(t, eveFile, ts.priv["eve"])
	known := filepath.Join(ts.dir, "known_hosts")
	host, port, _ := net.SplitHostPort(ts.addr)
	os.WriteFile(known, []byte(fmt.Sprintf("[%s]:%s %s", host, port, gossh.MarshalAuthorizedKey(ts.hostKey))), 0o600)
	ssh := func(key string, args ...string) (string, int) {
		full := append([]string{"-p", port, "-i", key, "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
			"-o", "UserKnownHostsFile=" + known, "-o", "StrictHostKeyChecking=yes", "-F", "/dev/null", host, "--"}, args...)
		out, code := runBinary(t, sshBin, full...)
		return out, code
	}
	if out, code := ssh(keyFile, "status"); code != 0 || !strings.Contains(out, "assignments") {
		t.Fatalf("ssh -- status: exit %d: %s", code, out)
	}
	if out, code := ssh(keyFile, "status", "--as", "carol"); code != 2 || !strings.Contains(out, "--as is not accepted") {
		t.Fatalf("ssh -- status --as carol: exit %d: %s", code, out)
	}
	if out, code := ssh(eveFile, "status"); code != 255 || !strings.Contains(out, "Permission denied (publickey)") {
		t.Fatalf("ssh with an unknown key: exit %d: %s", code, out)
	}
}

func writePrivateKey(t testing.TB, path string, priv ed25519.PrivateKey) {
	t.Helper()
	block, err := gossh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
}

// runBinary runs a program and returns its combined output and exit code.
func runBinary(t testing.TB, bin string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return string(out), exit.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	return string(out), 0
}

// TestServeClientDropsMidDraft: a reviewer whose connection dies while
// typing keeps the draft, as quitting would have saved it.
func TestServeClientDropsMidDraft(t *testing.T) {
	ts := startTeamServer(t, 20, 3)
	c, err := ts.dial(gossh.PublicKeys(ts.keys["bob"]))
	if err != nil {
		t.Fatal(err)
	}
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestPty("xterm", 24, 80, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	p := &ptyClient{t: t, sess: sess, done: make(chan error, 1)}
	p.in, _ = sess.StdinPipe()
	sess.Stdout, sess.Stderr = p, p
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	p.waitFor("Your label")
	p.send("\r")
	p.send("cut off mid-sentence")
	p.waitFor("mid-sentence")
	c.Close() // the network goes away
	waitUntil(t, "bob's draft", func() bool {
		body, _, err := ts.st.Draft(context.Background(), ts.items[0], "bob")
		return err == nil && strings.Contains(string(body), "cut off mid-sentence")
	})
	if got := ts.labelsOf("bob"); len(got) != 0 {
		t.Fatalf("a label was submitted on disconnect: %+v", got)
	}
}

// TestServeCIKeyAndAudit: a ci key fetches a dataset version and nothing
// else (no screen, no status), and what SSH users do is audited with their
// key's fingerprint and source ssh.
func TestServeCIKeyAndAudit(t *testing.T) {
	ts := startTeamServer(t, 20, 4)
	ciKey := newKey(t)
	if _, errOut, code := ts.run("carol", "", "users", "add", "ci-bot", "--role", "ci", "--key", `"`+keyLineOf(ciKey, "ci@runner")+`"`); code != 0 {
		t.Fatalf("users add ci-bot over ssh: %s", errOut)
	}
	ts.keys["ci-bot"] = ciKey
	// Gold for a version: both reviewers give the same answer on every item.
	for _, r := range []string{"alice", "bob"} {
		var in bytes.Buffer
		for _, id := range ts.items {
			b, _ := json.Marshal(review.Label{Item: id, Reviewer: r, Decision: review.DecisionNoCall,
				Calls: []review.LabelCall{}, Rationale: "no tool needed", Seconds: 9})
			in.Write(append(b, '\n'))
		}
		if _, errOut, code := ts.run(r, in.String(), "labels", "import", "-"); code != 0 {
			t.Fatalf("%s labels import: %s", r, errOut)
		}
	}
	if _, errOut, code := ts.run("carol", "", "export", "gold", "--allow-partial"); code != 0 {
		t.Fatalf("export: %s", errOut)
	}
	_, content, _, err := ts.st.DatasetFiles(context.Background(), "gold", 1)
	if err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := ts.run("ci-bot", "", "datasets", "get", "gold@v1"); code != 0 || out != string(content) {
		t.Fatalf("ci datasets get: exit %d, %d bytes, %q", code, len(out), errOut)
	}
	if _, errOut, code := ts.run("ci-bot", "", "status"); code != 2 || !strings.Contains(errOut, "ci-bot (ssh key SHA256:") {
		t.Fatalf("ci status: exit %d %q, want refused naming the key", code, errOut)
	}
	p := ts.openScreen("ci-bot")
	if code := p.exit(); code != 2 || !strings.Contains(p.screen(), "runs commands only") {
		t.Fatalf("ci screen: exit %d, %q", code, p.screen())
	}

	entries, err := ts.st.AuditLog(context.Background(), store.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	fps := map[string]string{}
	for _, u := range []string{"alice", "bob", "carol", "ci-bot"} {
		fps[u] = gossh.FingerprintSHA256(ts.keys[u].PublicKey())
	}
	seen := map[string]bool{}
	for _, e := range entries {
		if fp, ok := fps[e.Actor]; ok && e.Source == "ssh" {
			if e.KeyFingerprint != fp {
				t.Errorf("audit entry %+v: key %s, want %s", e, e.KeyFingerprint, fp)
			}
			seen[e.Actor+" "+e.Action+" "+e.Outcome] = true
		}
	}
	for _, want := range []string{"carol users.manage ok", "alice labels.import ok", "bob labels.import ok", "ci-bot status.totals denied", "ci-bot ssh.refused denied"} {
		if !seen[want] {
			t.Errorf("no ssh audit entry %q; have %v", want, seen)
		}
	}
}
