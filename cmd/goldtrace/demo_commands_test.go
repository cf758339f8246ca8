package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/app"
)

var (
	binaryOnce sync.Once
	binaryPath string
	binaryErr  error
)

// builtBinary builds the goldtrace binary once for the tests that run it
// as a user would (in a shell, in tmux).
func builtBinary(t *testing.T) string {
	t.Helper()
	binaryOnce.Do(func() {
		dir, err := os.MkdirTemp("", "goldtrace-bin-")
		if err != nil {
			binaryErr = err
			return
		}
		binaryPath = filepath.Join(dir, "goldtrace")
		if out, err := exec.Command("go", "build", "-o", binaryPath, ".").CombinedOutput(); err != nil {
			binaryErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binaryErr != nil {
		t.Fatal(binaryErr)
	}
	return binaryPath
}

// pane is one tmux session on a socket of its own, at 80×24.
type pane struct {
	t      *testing.T
	socket string
}

func newPane(t *testing.T, name, command string) pane {
	t.Helper()
	p := pane{t: t, socket: fmt.Sprintf("gt-%s-%d", name, os.Getpid())}
	p.tmux("new-session", "-d", "-s", "p", "-x", "80", "-y", "24", "bash", "-c", command)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", p.socket, "kill-server").Run() })
	return p
}

func (p pane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", p.socket}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// capture is the pane with its scroll-back; joined puts lines the
// terminal wrapped back together.
func (p pane) capture(joined bool) string {
	args := []string{"capture-pane", "-p", "-t", "p", "-S", "-3000"}
	if joined {
		args = append(args, "-J")
	}
	return p.tmux(args...)
}

// waitFor polls until ok accepts the pane (an external process can only be
// watched), and returns what it showed.
func (p pane) waitFor(what string, ok func(screen string) bool) string {
	p.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var screen string
	for time.Now().Before(deadline) {
		screen = p.capture(true)
		if ok(screen) {
			return screen
		}
		time.Sleep(100 * time.Millisecond)
	}
	p.t.Fatalf("the pane never showed %s:\n%s", what, screen)
	return ""
}

// TestDemoPrintsWhatRuns runs the real demo at 80×24 as a new user would:
// the label screen opens as alice, ctrl+c quits it, and what is printed then
// agrees with itself and with status (what is left, agreed and disputed),
// fits 80 columns (no command split mid-path), and every printed command
// runs as printed in a shell, screens included (each is opened and quit
// with ctrl+c), in order, with exit status 0.
func TestDemoPrintsWhatRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary in tmux")
	}
	for _, tool := range []string{"tmux", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool + " is not installed")
		}
	}
	bin := builtBinary(t)
	dir := filepath.Join(t.TempDir(), "demo project") // a space: quoting must hold
	work := t.TempDir()
	p := newPane(t, "demo", fmt.Sprintf("cd %s && NO_COLOR=1 %s demo --dir %s; echo DEMO-EXIT=$?; sleep 120",
		app.ShellQuote(work), app.ShellQuote(bin), app.ShellQuote(dir)))
	p.waitFor("the label screen", func(s string) bool { return strings.Contains(s, "ctrl+s submit") })
	p.tmux("send-keys", "-t", "p", "C-c")
	out := p.waitFor("the demo's exit", func(s string) bool { return strings.Contains(s, "DEMO-EXIT=") })
	if !strings.Contains(out, "DEMO-EXIT=0") {
		t.Fatalf("demo failed:\n%s", out)
	}
	out = out[:strings.Index(out, "DEMO-EXIT=")]

	// The quit notice and the project summary say the same.
	left := regexp.MustCompile(`(\d+) left in demo`).FindStringSubmatch(out)
	summary := regexp.MustCompile(`(\d+) left for alice; (\d+) agreed, (\d+) disputed`).FindStringSubmatch(out)
	if left == nil || summary == nil || left[1] != summary[1] {
		t.Fatalf("the quit notice and the summary disagree:\n%s", out)
	}
	status, errOut, code, _ := runCLI(filepath.Join(dir, "goldtrace.db"), "", "status", "--as", "carol", "--batch", "demo")
	if code != 0 {
		t.Fatal(errOut)
	}
	if want := fmt.Sprintf("(%s agreed, %s disputed,", summary[2], summary[3]); !strings.Contains(status, want) {
		t.Errorf("status says otherwise than the demo's %q:\n%s", want, status)
	}

	i := strings.Index(out, "\nnext (")
	if i < 0 {
		t.Fatalf("no next commands:\n%s", out)
	}
	var script []string
	var steps []string
	for _, line := range strings.Split(strings.TrimSpace(out[i:]), "\n")[1:] {
		if n := len([]rune(line)); n > 80 {
			t.Errorf("printed line of %d columns (a terminal splits it): %q", n, line)
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "D=") || strings.HasPrefix(line, "export GOLDTRACE_DB=") {
			script = append(script, line)
			continue
		}
		steps = append(steps, line)
	}
	if len(steps) < 6 {
		t.Fatalf("too few commands printed:\n%s", out[i:])
	}
	for k, s := range steps {
		// The printed line on a line of its own: its comment ends there.
		script = append(script, fmt.Sprintf("echo @@STEP-%d", k), s, fmt.Sprintf("echo $? > done-%d", k))
	}
	script = append(script, "echo @@ALL-DONE; sleep 120")
	file := filepath.Join(work, "next.sh")
	if err := os.WriteFile(file, []byte(strings.Join(script, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := newPane(t, "next", fmt.Sprintf("cd %s && NO_COLOR=1 bash %s", app.ShellQuote(work), app.ShellQuote(file)))
	for k, s := range steps {
		doneFile := filepath.Join(work, fmt.Sprintf("done-%d", k))
		finished := func() bool { _, err := os.Stat(doneFile); return err == nil }
		screen := run.waitFor(fmt.Sprintf("step %d (%s)", k, s), func(sc string) bool {
			// A screen is ready for keys once its help line is drawn.
			return finished() || strings.Contains(sc, "f1 more keys")
		})
		if !finished() {
			run.tmux("send-keys", "-t", "p", "C-c") // quit it as a user does
			screen = run.waitFor(fmt.Sprintf("step %d (%s) to quit", k, s), func(string) bool { return finished() })
		}
		// The file is written once the command returned; give the write
		// a moment to land.
		time.Sleep(50 * time.Millisecond)
		rc, _ := os.ReadFile(doneFile)
		if strings.TrimSpace(string(rc)) != "0" {
			t.Fatalf("%q did not run as printed (exit %s):\n%s", s, rc, run.capture(true))
		}
		_ = screen
	}
	final := run.waitFor("the end", func(sc string) bool { return strings.Contains(sc, "@@ALL-DONE") })
	if !strings.Contains(final, "goldtrace score: ") || !strings.Contains(final, "exported support v1") {
		t.Errorf("export and score did not report:\n%s", final)
	}
}
