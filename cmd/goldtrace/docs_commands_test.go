package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/app"
)

// Every command of the README and docs/*.md is run as written, in a shell,
// against a temporary project, so the documents cannot drift from the CLI.
// A command that cannot run here says why (docSkip) and is still parsed by
// the command tree (its command and flags must exist).

// docCommand is one command line of a document.
type docCommand struct {
	file   string
	line   int
	text   string // as written, continuation lines joined, the comment kept
	inline bool   // a `code span` in prose, not a line of a code block
}

// docCommands reads the goldtrace command lines of a document: every line
// of a sh/bash code block that runs goldtrace (or go, git, echo … around
// it), and every inline `goldtrace …` span that is a concrete command (no
// placeholder in capitals, no [optional] part, no …).
func docCommands(t *testing.T, file string) []docCommand {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var out []docCommand
	inBlock, shell := false, false
	placeholder := regexp.MustCompile(`\b[A-Z][A-Z_]{2,}\b|\[|…|\|`)
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "```") {
			if !inBlock {
				lang := strings.TrimSpace(l[3:])
				inBlock, shell = true, lang == "sh" || lang == "bash"
			} else {
				inBlock = false
			}
			continue
		}
		if inBlock {
			if !shell || strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#") {
				continue
			}
			start := i
			text := strings.TrimSpace(l)
			for strings.HasSuffix(text, "\\") && i+1 < len(lines) {
				i++
				text = strings.TrimSuffix(text, "\\") + " " + strings.TrimSpace(lines[i])
			}
			out = append(out, docCommand{file: file, line: start + 1, text: text})
			continue
		}
		for _, m := range regexp.MustCompile("`((?:\\./)?goldtrace [^`]+)`").FindAllStringSubmatch(l, -1) {
			if !placeholder.MatchString(m[1]) {
				out = append(out, docCommand{file: file, line: i + 1, text: m[1], inline: true})
			}
		}
	}
	return out
}

// docSkip says why a documented command cannot run in a test, or "".
func docSkip(c docCommand) string {
	s := c.text
	switch {
	case strings.HasPrefix(s, "ssh ") || strings.Contains(s, "goldtrace.example.com"):
		return "reaches a team server by its host name"
	case strings.HasPrefix(s, "go test"):
		return "runs the test suite this test is part of"
	case strings.Contains(s, `"SHA256  `):
		return "SHA256 stands for the sha256 goldtrace datasets shows"
	case regexp.MustCompile(`goldtrace (judge calibrate|predict)|--judge `).MatchString(s):
		return "calls a model endpoint with an API key"
	case strings.Contains(s, "goldtrace serve"):
		return "listens on a port until stopped (the serve tests run it)"
	case strings.Contains(s, "${fpath[1]}"):
		return "zsh syntax"
	case strings.Contains(s, "/usr/local/share/man"):
		return "writes into a system directory"
	case strings.Contains(s, "man -l") && !haveTool("man"):
		return "man is not installed"
	case strings.Contains(s, "score …"):
		return "an elided command line"
	case strings.HasPrefix(s, "vllm "):
		return "starts a model server"
	case regexp.MustCompile(`^(\./)?goldtrace( [a-z]+)*$`).MatchString(s) && c.inline:
		return "a command named in prose"
	}
	return ""
}

func haveTool(name string) bool {
	_, err := exec.LookPath(name)
	return err == nil
}

// docScreen reports whether a command opens a screen (run in tmux and quit
// with ctrl+c, as a user would).
func docScreen(s string) bool {
	return regexp.MustCompile(`goldtrace (label|adjudicate|dashboard)\b|goldtrace demo\s*(#|$)`).MatchString(s)
}

// docPanes numbers the tmux sockets of screens the documents open.
var docPanes int

// docEnv is a temporary project for one document's commands: its
// directory (the shell's working directory), a HOME of its own, and PATH
// with the built goldtrace first.
type docEnv struct {
	t         *testing.T
	dir, home string
	bin       string
	env       []string
}

func newDocEnv(t *testing.T) *docEnv {
	t.Helper()
	bin := builtBinary(t)
	root := t.TempDir()
	e := &docEnv{t: t, dir: filepath.Join(root, "project"), home: filepath.Join(root, "home"), bin: bin}
	for _, d := range []string{e.dir, e.home, filepath.Join(e.home, ".local/share/bash-completion/completions"),
		filepath.Join(e.home, ".config/fish/completions"), filepath.Join(e.home, ".ssh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	e.env = []string{"HOME=" + e.home, "PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"NO_COLOR=1", "GOBIN=" + filepath.Join(root, "gobin"), "TERM=xterm"}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GOCACHE=") || strings.HasPrefix(kv, "GOPATH=") || strings.HasPrefix(kv, "GOMODCACHE=") ||
			strings.HasPrefix(kv, "GOFLAGS=") || strings.HasPrefix(kv, "GOPROXY=") || strings.HasPrefix(kv, "TMPDIR=") {
			e.env = append(e.env, kv)
		}
	}
	// The go commands of the README must find the module and build caches
	// the real HOME points to, not download everything again.
	for _, name := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		if os.Getenv(name) == "" {
			if c, err := exec.Command("go", "env", name).Output(); err == nil {
				e.env = append(e.env, name+"="+strings.TrimSpace(string(c)))
			}
		}
	}
	return e
}

// must runs goldtrace in the project as the test's own setup (not a
// documented command).
func (e *docEnv) must(args ...string) string {
	e.t.Helper()
	cmd := exec.Command(e.bin, args...)
	cmd.Dir, cmd.Env = e.dir, e.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		e.t.Fatalf("setup goldtrace %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

func (e *docEnv) write(name, body string) {
	e.t.Helper()
	p := filepath.Join(e.dir, name)
	if strings.HasPrefix(name, "~/") {
		p = filepath.Join(e.home, name[2:])
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// tracesGz writes n synthetic traces, gzipped, as name.
func (e *docEnv) tracesGz(name string, n int) {
	e.t.Helper()
	raw := filepath.Join(e.t.TempDir(), "traces.jsonl")
	e.must("demo", "--write-traces", fmt.Sprint(n), raw)
	data, err := os.ReadFile(raw)
	if err != nil {
		e.t.Fatal(err)
	}
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	zw.Close()
	e.write(name, b.String())
}

// run runs one documented command as written, in bash, in the project;
// a screen is opened in tmux at 80×24 and quit with ctrl+c. It returns the
// exit status and what the command printed.
func (e *docEnv) run(c docCommand, dir string) (int, string) {
	e.t.Helper()
	if dir == "" {
		dir = e.dir
	}
	if docScreen(c.text) {
		if !haveTool("tmux") {
			e.t.Logf("%s:%d: %s — tmux is not installed: parsed only", c.file, c.line, c.text)
			return 0, ""
		}
		done := filepath.Join(e.t.TempDir(), "rc")
		var env strings.Builder
		for _, kv := range e.env {
			env.WriteString(app.ShellQuote(kv) + " ")
		}
		docPanes++
		p := newPane(e.t, fmt.Sprintf("doc%d", docPanes), fmt.Sprintf("cd %s && env %s bash -c %s; echo $? > %s; sleep 60",
			app.ShellQuote(dir), env.String(), app.ShellQuote(c.text), app.ShellQuote(done)))
		finished := func() bool { _, err := os.Stat(done); return err == nil }
		p.waitFor(c.text, func(sc string) bool { return finished() || strings.Contains(sc, "f1 more keys") })
		if !finished() {
			p.tmux("send-keys", "-t", "p", "C-c")
			p.waitFor(c.text+" to quit", func(string) bool { return finished() })
		}
		rc, _ := os.ReadFile(done)
		code := 0
		fmt.Sscan(string(rc), &code)
		return code, p.capture(true)
	}
	cmd := exec.Command("bash", "-c", c.text)
	cmd.Dir, cmd.Env = dir, e.env
	out, _ := cmd.CombinedOutput()
	return cmd.ProcessState.ExitCode(), string(out)
}

// runDoc runs the commands of file in order, calling before[i] (if any)
// first: the work a user does between commands (on a screen, or a model
// run) that the test does instead. Every command must exit 0.
func runDoc(t *testing.T, e *docEnv, file string, before map[string]func(), dirOf func(docCommand) string) {
	t.Helper()
	cmds := docCommands(t, file)
	if len(cmds) == 0 {
		t.Fatalf("%s: no commands found", file)
	}
	for _, c := range cmds {
		for key, hook := range before {
			if strings.Contains(c.text, key) {
				hook()
				delete(before, key)
			}
		}
		if why := docSkip(c); why != "" {
			t.Logf("%s:%d: not run (%s): %s", c.file, c.line, why, c.text)
			checkParses(t, c)
			continue
		}
		dir := ""
		if dirOf != nil {
			dir = dirOf(c)
		}
		code, out := e.run(c, dir)
		if code != 0 {
			t.Errorf("%s:%d: %s\nexit %d:\n%s", c.file, c.line, c.text, code, out)
		}
	}
	for key := range before {
		t.Errorf("%s: no command matched %q (the document changed?)", file, key)
	}
}

// checkParses finds every goldtrace invocation of a command line in the
// command tree and parses its flags: a command the test cannot run still
// names a real command with real flags.
func checkParses(t *testing.T, c docCommand) {
	t.Helper()
	for _, part := range regexp.MustCompile(`&&|;|\|`).Split(c.text, -1) {
		words := shellWords(strings.TrimSpace(part))
		i := -1
		for k, w := range words {
			if w == "goldtrace" || strings.HasSuffix(w, "/goldtrace") || w == "--" && k > 0 && strings.Contains(strings.Join(words[:k], " "), "ssh") {
				i = k
				break
			}
		}
		if i < 0 || i+1 >= len(words) || strings.HasPrefix(words[i+1], "…") {
			continue
		}
		args := words[i+1:]
		root := newRootCmd(NewCLI(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}))
		cmd, rest, err := root.Find(args)
		if err != nil || cmd == root {
			t.Errorf("%s:%d: %q names no goldtrace command: %v", c.file, c.line, strings.Join(args, " "), err)
			continue
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Errorf("%s:%d: %q: %v", c.file, c.line, strings.Join(args, " "), err)
		}
	}
}

// goldProject makes e's project a demo project whose batch is gold (every
// dispute resolved) with versions of dataset support exported, and points
// GOLDTRACE_DB at it; it returns the last version's file.
func goldProject(t *testing.T, e *docEnv, versions int) string {
	t.Helper()
	ciProject(t, e.dir) // support v1 in evals/
	db := filepath.Join(e.dir, "goldtrace.db")
	e.env = append(e.env, "GOLDTRACE_DB="+db)
	last := filepath.Join(e.dir, "evals", "support-v1.jsonl")
	for v := 2; v <= versions; v++ {
		out := t.TempDir()
		e.must("export", "support", "--as", "carol", "--out", out, "-m", fmt.Sprintf("v%d", v), "--force")
		last = filepath.Join(out, fmt.Sprintf("support-v%d.jsonl", v))
	}
	return last
}

// reviewRound samples a small batch for alice and bob and has them label
// it alike (as they would on their screens): new gold for the next export.
func reviewRound(t *testing.T, e *docEnv, batch string) {
	t.Helper()
	e.must("sample", "--n", "3", "--seed", "5", "--reviewers", "alice,bob", "--batch", batch)
	ids, _ := itemIDs(t, e.must("items", "--as", "alice", "--batch", batch, "--json"))
	var lines []string
	for _, id := range ids {
		for _, r := range []string{"alice", "bob"} {
			lines = append(lines, fmt.Sprintf(`{"item":%q,"reviewer":%q,"decision":"no_call","rationale":"small talk"}`, id, r))
		}
	}
	e.write(batch+"-labels.jsonl", strings.Join(lines, "\n")+"\n")
	e.must("labels", "import", batch+"-labels.jsonl", "--as", "carol", "--for-others")
}

func TestDocsSamplingCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the documented commands")
	}
	e := newDocEnv(t)
	e.must("demo", "--no-tui", "--dir", e.dir, "--traces", "300")
	e.env = append(e.env, "GOLDTRACE_DB="+filepath.Join(e.dir, "goldtrace.db"))
	e.tracesGz("prod-2026-05.jsonl.gz", 400)
	// Two prediction runs over stored items that disagree on some (what a
	// harness or predict would write for --by disagreement).
	var plan app.SamplePlan
	if err := json.Unmarshal([]byte(e.must("sample", "--n", "150", "--dry-run", "--json", "--seed", "3")), &plan); err != nil {
		t.Fatal(err)
	}
	var a, b strings.Builder
	for i, it := range plan.Items {
		fmt.Fprintf(&a, `{"id":%q,"tool_calls":[]}`+"\n", it.ID)
		if i%3 == 0 {
			fmt.Fprintf(&b, `{"id":%q,"tool_calls":[{"name":"escalate_to_human","arguments":{}}]}`+"\n", it.ID)
		} else {
			fmt.Fprintf(&b, `{"id":%q,"tool_calls":[]}`+"\n", it.ID)
		}
	}
	e.write("gpt41.jsonl", a.String())
	e.write("claude.jsonl", b.String())
	runDoc(t, e, "../../docs/sampling.md", nil, nil)
}

func TestDocsScoringCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the documented commands")
	}
	e := newDocEnv(t)
	v3 := goldProject(t, e, 3)
	data, err := os.ReadFile(v3)
	if err != nil {
		t.Fatal(err)
	}
	e.write("support-v3.jsonl", string(data))
	writeRun(t, v3, filepath.Join(e.dir, "run.jsonl"), 0)
	e.must("score", "--gold", "support-v3.jsonl", "--pred", "run.jsonl", "--format", "json", "--out", "main.json")
	runDoc(t, e, "../../docs/scoring.md", nil, nil)
}

func TestDocsCICommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the documented commands")
	}
	if !haveTool("git") {
		t.Skip("git is not installed")
	}
	e := newDocEnv(t)
	goldProject(t, e, 2) // the job exports v3
	if out, err := exec.Command("git", "init", "-q", e.dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	e.write("ci_ed25519.pub", keyLineOf(newKey(t), "ci@runner")+"\n")
	runDoc(t, e, "../../docs/ci.md", map[string]func(){
		// The review round the export's message names: new gold since v2.
		`goldtrace export support --as carol --out evals -m "May review round"`: func() { reviewRound(t, e, "may") },
	}, nil)
}

func TestDocsJudgeLabelingReviewReliabilityCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the documented commands")
	}
	e := newDocEnv(t)
	v3 := goldProject(t, e, 3)
	// What predict (not run: it calls a model) would have written.
	predicted := func(name string) func() {
		return func() { writeRun(t, v3, filepath.Join(e.dir, name), 0) }
	}
	hooks := map[string]map[string]func(){
		"judge.md": {
			"goldtrace score --gold support@v3 --pred run.jsonl --format json --out base.json": predicted("run.jsonl"),
			"goldtrace score --gold support@v3 --pred whatif.jsonl --baseline base.json":       predicted("whatif.jsonl"),
		},
	}
	for _, doc := range []string{"judge.md", "labeling.md", "review.md", "reliability.md"} {
		if len(docCommands(t, "../../docs/"+doc)) == 0 {
			continue // nothing concrete to run in this one
		}
		runDoc(t, e, "../../docs/"+doc, hooks[doc], nil)
	}
}

// TestDocsReadmeCommands runs the README's quick start in a new directory
// as a new user would (go install, init, users, import, sample, the label
// and adjudicate screens, export, score), its team-mode commands with
// ./goldtrace beside a database of their own, and its inline commands.
// What users do on the screens (labeling, adjudicating) and what the model
// under test writes (run.jsonl) the test does between the commands.
func TestDocsReadmeCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the documented commands")
	}
	e := newDocEnv(t)
	checkout, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	e.env = append(e.env, "PATH="+filepath.Join(filepath.Dir(e.home), "gobin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	e.tracesGz("prod-traces.jsonl.gz", 200)
	team := filepath.Join(filepath.Dir(e.dir), "team")
	if err := os.MkdirAll(team, 0o755); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(e.bin); err != nil || os.WriteFile(filepath.Join(team, "goldtrace"), data, 0o755) != nil {
		t.Fatalf("copy the binary: %v", err)
	}
	e.write("~/.ssh/id_ed25519.pub", keyLineOf(newKey(t), "carol@laptop")+"\n")
	os.WriteFile(filepath.Join(team, "alice.pub"), []byte(keyLineOf(newKey(t), "alice@laptop")+"\n"), 0o644)
	os.WriteFile(filepath.Join(team, "ci_ed25519.pub"), []byte(keyLineOf(newKey(t), "ci@runner")+"\n"), 0o644)

	db := filepath.Join(e.dir, "support.db")
	labelAll := func() {
		// alice and bob label their queues alike (on their screens).
		out := e.must("items", "--as", "alice", "--json", "--db", db)
		ids, _ := itemIDs(t, out)
		var lines []string
		for _, id := range ids {
			for _, r := range []string{"alice", "bob"} {
				lines = append(lines, fmt.Sprintf(`{"item":%q,"reviewer":%q,"decision":"no_call","rationale":"the user only chats"}`, id, r))
			}
		}
		e.write("screen-labels.jsonl", strings.Join(lines, "\n")+"\n")
		e.must("labels", "import", "screen-labels.jsonl", "--as", "carol", "--for-others", "--db", db)
	}
	before := map[string]func(){
		"goldtrace export support --as carol --out evals --format promptfoo": labelAll,
		"goldtrace score --gold evals/support-v1.jsonl --pred run.jsonl": func() {
			writeRun(t, filepath.Join(e.dir, "evals", "support-v1.jsonl"), filepath.Join(e.dir, "run.jsonl"), 0)
		},
		"./goldtrace score --gold gold.jsonl --pred run.jsonl": func() {
			gold, _ := os.ReadFile(filepath.Join(e.dir, "evals", "support-v1.jsonl"))
			os.WriteFile(filepath.Join(team, "gold.jsonl"), gold, 0o644)
			writeRun(t, filepath.Join(team, "gold.jsonl"), filepath.Join(team, "run.jsonl"), 0)
		},
	}
	dirOf := func(c docCommand) string {
		switch {
		case strings.HasPrefix(c.text, "./goldtrace"):
			return team
		case strings.HasPrefix(c.text, "go "):
			return checkout
		}
		return ""
	}
	runDoc(t, e, "../../README.md", before, dirOf)
}
