package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/goldtrace/goldtrace/store"
)

// openSSH runs the real OpenSSH client against a team server, one
// multiplexed connection per key (ControlMaster), so a table of hundreds
// of command lines stays fast.
type openSSH struct {
	t           *testing.T
	bin, known  string
	host, port  string
	keyFile     map[string]string
	controlDir  string
	masterStops []func()
}

func newOpenSSH(t *testing.T, ts *teamServer, users ...string) *openSSH {
	bin, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("no OpenSSH client (ssh) on PATH: install openssh-client to run this test")
	}
	o := &openSSH{t: t, bin: bin, keyFile: map[string]string{}}
	o.host, o.port, _ = net.SplitHostPort(ts.addr)
	o.known = filepath.Join(ts.dir, "known_hosts")
	os.WriteFile(o.known, []byte(fmt.Sprintf("[%s]:%s %s", o.host, o.port, gossh.MarshalAuthorizedKey(ts.hostKey))), 0o600)
	// A short directory: a control socket's path must fit in 104 bytes.
	o.controlDir, err = os.MkdirTemp("", "gtcm")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, stop := range o.masterStops {
			stop()
		}
		os.RemoveAll(o.controlDir)
	})
	for _, u := range users {
		o.keyFile[u] = filepath.Join(ts.dir, u+"_ed25519")
		writePrivateKey(t, o.keyFile[u], ts.priv[u])
		user := u
		o.masterStops = append(o.masterStops, func() {
			exec.Command(bin, append(o.opts(user), "-O", "exit", o.host)...).Run()
		})
	}
	return o
}

func (o *openSSH) opts(user string) []string {
	return []string{"-p", o.port, "-i", o.keyFile[user], "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
		"-o", "UserKnownHostsFile=" + o.known, "-o", "StrictHostKeyChecking=yes", "-F", "/dev/null",
		"-o", "ControlMaster=auto", "-o", "ControlPath=" + filepath.Join(o.controlDir, user), "-o", "ControlPersist=60"}
}

// run sends one command line as user; stdin is empty.
func (o *openSSH) run(user string, args ...string) (string, int) {
	o.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	full := append(append(o.opts(user), o.host, "--"), sshQuote(args)...)
	cmd := exec.CommandContext(ctx, o.bin, full...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	} else if err != nil {
		o.t.Fatalf("ssh: %v", err)
	}
	return string(out), 0
}

// sshQuote quotes each argument for the server's word splitting (the
// SSH command is one string).
func sshQuote(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t'\"\\$") {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		} else {
			out[i] = a
		}
	}
	return out
}

// attack is a command line that would reach outside what a key may do over
// SSH if the surface let it: {F} is a fresh path on the server, {U} a URL
// of a local HTTP server that counts requests.
type attack []string

// spellings are the ways a client may write a command line to slip a flag
// past a filter: help switched off in every spelling, the flag's value
// glued with =, the flag repeated, and after "--".
func spellings(a attack) [][]string {
	var out [][]string
	add := func(s []string) { out = append(out, s) }
	add(a)
	for i, h := range []string{"--help=false", "-h=false", "--help=0", "--help=f", "--help=FALSE", "-h=0"} {
		if i%2 == 0 {
			add(append(append([]string{}, a...), h))
		} else {
			add(append([]string{h}, a...))
		}
	}
	var glued []string
	for i := 0; i < len(a); i++ {
		if strings.HasPrefix(a[i], "--") && i+1 < len(a) && !strings.HasPrefix(a[i+1], "-") && strings.ContainsAny(a[i+1], "/:") {
			glued = append(glued, a[i]+"="+a[i+1])
			i++
			continue
		}
		glued = append(glued, a[i])
	}
	add(glued)
	add(append(append([]string{}, a...), a[1:]...)) // repeated
	if len(a) > 1 {
		add(append([]string{a[0], "--"}, a[1:]...)) // after --
	}
	return out
}

// TestServeSurfaceOverOpenSSH: every key (reviewer, lead, ci) sends
// command lines that name a server file, a URL, a listener or another
// database, in every spelling, through the real ssh client. None may
// create a file, make a request or write anything but its refusal to the
// audit log.
func TestServeSurfaceOverOpenSSH(t *testing.T) {
	ts := startTeamServer(t, 20, 4)
	ciKey, ciPriv := newKeyPair(t)
	if _, errOut, code := ts.run("carol", keyLineOf(ciKey, "ci")+"\n", "users", "add", "ci-bot", "--role", "ci", "--key", "-"); code != 0 {
		t.Fatal(errOut)
	}
	ts.keys["ci-bot"], ts.priv["ci-bot"] = ciKey, ciPriv
	var requests atomic.Int64
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.Error(w, "no", http.StatusTeapot)
	}))
	defer web.Close()
	t.Setenv("OPENAI_API_KEY", "sk-secret-of-the-server")
	o := newOpenSSH(t, ts, "alice", "carol", "ci-bot")
	files := t.TempDir()

	attacks := []attack{
		{"labels", "export", "--out", "{F}"},
		{"export", "gold", "--out", "{F}"},
		{"score", "--gold", "{F}"},
		{"score", "--gold", "gold@v1", "--out", "{F}"},
		{"score", "--gold", "gold@v1", "--baseline", "{F}"},
		{"score", "--gold", "gold@v1", "--judge", "args", "--judge-url", "{U}"},
		{"predict", "--url", "{U}", "--gold", "gold@v1", "--out", "{F}"},
		{"judge", "calibrate", "--judge-url", "{U}", "--gold", "gold@v1"},
		{"demo", "--write-traces", "1", "{F}"},
		{"man", "{F}"},
		{"backup", "{F}"},
		{"init", "--db", "{F}"},
		{"status", "--db", "{F}"},
		{"serve", "--listen", "127.0.0.1:0", "--host-key", "{F}"},
		{"verify", "gold@v1", "--manifest", "{F}"},
		{"import", "{F}"},
		{"labels", "import", "{F}"},
		{"guide", "set", "{F}"},
		{"sample", "--from", "{F}", "--n", "1"},
		{"resolve", "it_x", "--label", "{F}", "--reason", "r"},
		{"users", "key", "add", "alice", "{F}"},
		{"users", "add", "mallory", "--key", "{F}"},
		{"completion", "bash"},
	}
	rows := func(user string) (ok, denied int) {
		entries, err := ts.st.AuditLog(context.Background(), store.AuditFilter{Actor: user})
		if err != nil {
			t.Error(err)
		}
		for _, e := range entries {
			switch e.Outcome {
			case store.AuditOK:
				ok++
			case store.AuditDenied:
				denied++
			}
		}
		return ok, denied
	}
	var n atomic.Int64
	for _, user := range []string{"alice", "carol", "ci-bot"} {
		t.Run(user, func(t *testing.T) {
			t.Parallel()
			for _, a := range attacks {
				beforeOK, beforeDenied := rows(user)
				refused := 0
				for _, line := range spellings(a) {
					i := n.Add(1)
					path := filepath.Join(files, fmt.Sprintf("f%d", i))
					args := make([]string, len(line))
					for i, w := range line {
						w = strings.ReplaceAll(w, "{F}", path)
						args[i] = strings.ReplaceAll(w, "{U}", web.URL+"/v1")
					}
					out, code := o.run(user, args...)
					if _, err := os.Lstat(path); err == nil {
						t.Errorf("ssh -- %s created %s (exit %d: %s)", strings.Join(args, " "), path, code, out)
					}
					if strings.Contains(out, "sk-secret") || strings.Contains(out, "PRIVATE KEY") {
						t.Errorf("ssh -- %s printed a server secret: %s", strings.Join(args, " "), out)
					}
					if code != 2 {
						t.Errorf("ssh -- %s: exit %d, want 2 (refused): %.300s", strings.Join(args, " "), code, out)
						continue
					}
					refused++
				}
				afterOK, afterDenied := rows(user)
				if afterOK != beforeOK {
					t.Errorf("%v: %d actions recorded as done, want none", a, afterOK-beforeOK)
				}
				if afterDenied-beforeDenied < refused {
					t.Errorf("%v: %d refusals, %d audit rows of them", a, refused, afterDenied-beforeDenied)
				}
			}
		})
	}
	t.Cleanup(func() {
		if r := requests.Load(); r != 0 {
			t.Errorf("%d requests reached the local HTTP server", r)
		}
		t.Logf("%d command lines over OpenSSH", n.Load())
	})
}

// TestServeOperandsNeverOpenServerFiles: over SSH a dataset operand is a
// stored version, never a file: a file or directory of that name in the
// server's working directory changes nothing, not even the error.
func TestServeOperandsNeverOpenServerFiles(t *testing.T) {
	ts := startTeamServer(t, 10, 2)
	lines := [][]string{
		{"score", "--gold", "gold@v1"},
		{"diff", "gold@v1", "gold@v2"},
		{"verify", "gold@v1"},
		{"datasets", "get", "gold@v1"},
	}
	before := map[string]string{}
	for _, l := range lines {
		_, errOut, code := ts.run("alice", "", l...)
		before[strings.Join(l, " ")] = fmt.Sprint(code, errOut)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	os.Mkdir(filepath.Join(dir, "gold@v1"), 0o755)
	os.WriteFile(filepath.Join(dir, "gold@v2"), []byte("{\"secret\":1}\n"), 0o644)
	for _, l := range lines {
		_, errOut, code := ts.run("alice", "", l...)
		if got := fmt.Sprint(code, errOut); got != before[strings.Join(l, " ")] {
			t.Errorf("ssh -- %s: with server files of those names %q, without %q", strings.Join(l, " "), got, before[strings.Join(l, " ")])
		}
		if strings.Contains(errOut, "secret") || strings.Contains(errOut, "directory") {
			t.Errorf("ssh -- %s: %q tells of a server file", strings.Join(l, " "), errOut)
		}
	}
	// A lead's key argument is its text, never a file of the server's.
	os.WriteFile(filepath.Join(dir, "a b.pub"), []byte(keyLineOf(newKey(t), "planted")+"\n"), 0o644)
	if _, errOut, code := ts.run("carol", "", "users", "key", "add", "alice", "'a b.pub'"); code != 2 || !strings.Contains(errOut, "not an SSH public key") {
		t.Errorf("users key add alice 'a b.pub': exit %d %q; want the argument read as a key line and refused", code, errOut)
	}
}

// TestServeHelpOverSSH: --help prints help in the key's tree; a false help
// value is a usage error, never a run.
func TestServeHelpOverSSH(t *testing.T) {
	ts := startTeamServer(t, 10, 2)
	out, _, code := ts.run("alice", "", "--help")
	_, commands, _ := strings.Cut(out, "Available Commands:")
	commands, _, _ = strings.Cut(commands, "Flags:")
	if code != 0 || !strings.Contains(commands, "labels") {
		t.Errorf("--help as a reviewer: exit %d\n%s", code, out)
	}
	for _, c := range []string{"serve", "backup", "export", "import", "sample", "predict", "assign", "demo", "man", "init", "judge", "completion", "audit"} {
		if strings.Contains(commands, "\n  "+c+" ") {
			t.Errorf("--help as a reviewer lists %s:\n%s", c, commands)
		}
	}
	out, _, code = ts.run("alice", "", "labels", "export", "--help")
	_, flags, _ := strings.Cut(out, "Flags:")
	if code != 0 || strings.Contains(flags, "--out") || strings.Contains(flags, "--as") || !strings.Contains(flags, "--reviewer") {
		t.Errorf("labels export --help: exit %d\n%s", code, out)
	}
	// help COMMAND prints another command's flags: cut down as well.
	out, _, code = ts.run("alice", "", "help", "labels", "export")
	_, flags, _ = strings.Cut(out, "Flags:")
	if code != 0 || strings.Contains(flags, "--out") || strings.Contains(flags, "--as") || !strings.Contains(flags, "--reviewer") {
		t.Errorf("help labels export: exit %d\n%s", code, out)
	}
	if _, errOut, code := ts.run("alice", "", "labels", "export", "--help=false"); code != 2 || !strings.Contains(errOut, "--help takes no value") {
		t.Errorf("labels export --help=false: exit %d %q", code, errOut)
	}
}
