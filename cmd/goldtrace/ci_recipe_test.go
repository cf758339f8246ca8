package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/store"
)

// ciStep is one step of a CI job as docs/ci.md writes it.
type ciStep struct {
	name, uses, run, cond string
	with                  map[string]string
}

// ciBlock returns the first ```yaml block after heading in docs/ci.md.
func ciBlock(t *testing.T, doc, heading string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(doc, heading)
	if !ok {
		t.Fatalf("docs/ci.md has no %q", heading)
	}
	_, rest, ok = strings.Cut(rest, "```yaml\n")
	if !ok {
		t.Fatalf("docs/ci.md: no yaml block after %q", heading)
	}
	block, _, _ := strings.Cut(rest, "```")
	return strings.Split(block, "\n")
}

// yamlValue is a scalar's value without its trailing comment and quotes.
func yamlValue(s string) string {
	if i := strings.Index(s, " #"); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	return s
}

func indentOf(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }

// mapAt reads the "key: value" lines indented under lines[i] (a "name:"
// line).
func mapAt(lines []string, i int) map[string]string {
	m := map[string]string{}
	base := indentOf(lines[i])
	for _, l := range lines[i+1:] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if indentOf(l) <= base {
			break
		}
		k, v, _ := strings.Cut(strings.TrimSpace(l), ":")
		m[k] = yamlValue(v)
	}
	return m
}

// githubSteps reads the job's env and steps.
func githubSteps(t *testing.T, lines []string) (map[string]string, []ciStep) {
	t.Helper()
	var env map[string]string
	var steps []ciStep
	inSteps := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		trim := strings.TrimSpace(l)
		switch {
		case trim == "env:" && indentOf(l) == 4:
			env = mapAt(lines, i)
		case trim == "steps:":
			inSteps = true
		case inSteps && strings.HasPrefix(trim, "- "):
			steps = append(steps, ciStep{with: map[string]string{}})
			trim = strings.TrimPrefix(trim, "- ")
			fallthrough
		case inSteps && len(steps) > 0 && indentOf(l) >= 8:
			s := &steps[len(steps)-1]
			k, v, _ := strings.Cut(trim, ":")
			v = strings.TrimSpace(v)
			switch k {
			case "name":
				s.name = yamlValue(v)
			case "uses":
				s.uses = yamlValue(v)
			case "if":
				s.cond = yamlValue(v)
			case "with":
				s.with = mapAt(lines, i)
			case "run":
				if v != "|" {
					s.run = yamlValue(v)
					continue
				}
				base := indentOf(l)
				var body []string
				for i+1 < len(lines) && (strings.TrimSpace(lines[i+1]) == "" || indentOf(lines[i+1]) > base) {
					i++
					body = append(body, strings.TrimPrefix(lines[i], strings.Repeat(" ", base+2)))
				}
				s.run = strings.Join(body, "\n")
			}
		}
	}
	if env == nil || len(steps) == 0 {
		t.Fatal("docs/ci.md: the GitHub job has no env or no steps")
	}
	return env, steps
}

// ciProject makes a project with an exported version in evals/ and returns
// the version's path.
func ciProject(t *testing.T, dir string) string {
	t.Helper()
	db := filepath.Join(dir, "goldtrace.db")
	if _, errOut, code := expRun(t, db, "demo", "--no-tui", "--dir", dir, "--traces", "200", "--batch-items", "40", "--prelabeled", "40"); code != 0 {
		t.Fatalf("demo: %s", errOut)
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	disputes, err := st.DisputedQueue(context.Background(), store.DisputeFilter{})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range disputes {
		if _, errOut, code := expRun(t, db, "resolve", d.Item, "--as", "carol", "--pick", "bob", "--reason", "per the guide"); code != 0 {
			t.Fatalf("resolve: %s", errOut)
		}
	}
	if _, errOut, code := expRun(t, db, "export", "support", "--as", "carol", "--out", filepath.Join(dir, "evals"), "-m", "first cut"); code != 0 {
		t.Fatalf("export: %s", errOut)
	}
	return filepath.Join("evals", dataset.FileName("support", 1))
}

// writeRun writes what the model under test would: a prediction per gold
// item with the gold's own calls, except that every wrongEvery-th item
// (0: none) gets a call of a tool that is not offered.
func writeRun(t *testing.T, gold, path string, wrongEvery int) {
	t.Helper()
	f, err := os.Open(gold)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out strings.Builder
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for n := 1; sc.Scan(); n++ {
		rec, err := dataset.DecodeRecord(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		calls := []map[string]any{}
		for _, c := range rec.ExpectedCalls {
			calls = append(calls, map[string]any{"id": "call_1", "type": "function",
				"function": map[string]string{"name": c.Tool, "arguments": string(c.Args)}})
		}
		if wrongEvery > 0 && n%wrongEvery == 0 {
			calls = []map[string]any{{"name": "delete_everything", "arguments": map[string]any{}}}
		}
		b, _ := json.Marshal(map[string]any{"id": rec.ID, "tool_calls": calls})
		out.Write(append(b, '\n'))
	}
	writeFile(t, path, out.String())
}

// goldtraceOnPath builds the goldtrace binary into a directory to put first
// on PATH, as the recipes' install step does.
func goldtraceOnPath(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	exe := "goldtrace"
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	out, err := exec.Command("go", "build", "-o", filepath.Join(bin, exe), ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestCIRecipeGitHub runs docs/ci.md's GitHub Actions job, step by step, in
// a temporary project: once on main (no baseline yet: it passes and saves
// its report as the baseline), then on a pull request whose model
// regressed (the baseline comparison fails the Score step with exit 1,
// after writing the JUnit report and the job summary). Only the install
// and the model call are replaced: the binary is built from this tree and
// the run is written by the test.
func TestCIRecipeGitHub(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	doc := readFile(t, filepath.Join("..", "..", "docs", "ci.md"))
	env, steps := githubSteps(t, ciBlock(t, doc, "## 3. GitHub Actions"))
	bin := goldtraceOnPath(t)
	work := t.TempDir()
	gold := ciProject(t, work)
	cache := t.TempDir()

	runJob := func(ref string, wrongEvery int) (failedStep string, summary string) {
		t.Helper()
		os.RemoveAll(filepath.Join(work, "baseline"))
		summaryFile := filepath.Join(t.TempDir(), "summary.md")
		writeFile(t, summaryFile, "")
		jobEnv := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "GITHUB_STEP_SUMMARY="+summaryFile, "GITHUB_REF="+ref)
		for k, v := range env {
			if k == "GOLD" {
				v = gold
			}
			jobEnv = append(jobEnv, k+"="+v)
		}
		ok := true
		for _, s := range steps {
			switch s.cond {
			case "":
				if !ok {
					continue
				}
			case "always()":
			case "github.ref == 'refs/heads/main' && success()":
				if ref != "refs/heads/main" || !ok {
					continue
				}
			default:
				t.Fatalf("step %q: condition %q is not simulated", s.name, s.cond)
			}
			switch {
			case s.name == "Install goldtrace":
				continue // built from this tree above
			case s.name == "Run the model under test":
				writeRun(t, filepath.Join(work, gold), filepath.Join(work, "run.jsonl"), wrongEvery)
				continue
			case strings.HasPrefix(s.uses, "actions/cache/restore@"):
				if s.with["path"] != "baseline" || !strings.HasPrefix(s.with["restore-keys"], "goldtrace-baseline-") {
					t.Fatalf("cache restore step %+v", s)
				}
				if b, err := os.ReadFile(filepath.Join(cache, "score.json")); err == nil {
					os.MkdirAll(filepath.Join(work, "baseline"), 0o755)
					writeFile(t, filepath.Join(work, "baseline", "score.json"), string(b))
				}
				continue
			case strings.HasPrefix(s.uses, "actions/cache/save@"):
				writeFile(t, filepath.Join(cache, "score.json"), readFile(t, filepath.Join(work, "baseline", "score.json")))
				continue
			case strings.HasPrefix(s.uses, "actions/upload-artifact@"):
				for _, p := range []string{"score.json", "score.xml", "run.jsonl"} {
					if _, err := os.Stat(filepath.Join(work, p)); err != nil {
						t.Errorf("%s: artifact %s was not written", ref, p)
					}
				}
				continue
			case s.uses != "":
				continue // checkout, setup-go
			}
			cmd := exec.Command(bash, "-e", "-c", s.run)
			cmd.Dir, cmd.Env = work, jobEnv
			out, err := cmd.CombinedOutput()
			if err != nil {
				if failedStep == "" {
					failedStep = fmt.Sprintf("%s (%v): %s", s.name, err, out)
				}
				ok = false
			}
		}
		return failedStep, readFile(t, summaryFile)
	}

	failedStep, summary := runJob("refs/heads/main", 0)
	if failedStep != "" {
		t.Fatalf("main: step %s", failedStep)
	}
	if !strings.Contains(summary, "exact_call") {
		t.Errorf("main: the job summary lacks the report:\n%s", summary)
	}
	if _, err := os.Stat(filepath.Join(cache, "score.json")); err != nil {
		t.Fatal("main: no baseline saved")
	}

	failedStep, summary = runJob("refs/pull/7/merge", 10)
	if !strings.HasPrefix(failedStep, "Score (exit status 1)") {
		t.Fatalf("regressed pull request: want the Score step to fail with exit 1, got %q", failedStep)
	}
	if !strings.Contains(summary, "exact_call") || !strings.Contains(strings.ToLower(summary), "fail") {
		t.Errorf("regressed pull request: the job summary does not show the failure:\n%s", summary)
	}
	junit := readFile(t, filepath.Join(work, "score.xml"))
	if !strings.Contains(junit, "<testsuite") || !strings.Contains(junit, "<failure") {
		t.Errorf("score.xml is not a JUnit report with failures:\n%.400s", junit)
	}
}

// TestCIRecipeGitLab runs docs/ci.md's GitLab job's script in one shell, as
// GitLab does, on the default branch and then on a regressed merge request.
func TestCIRecipeGitLab(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	doc := readFile(t, filepath.Join("..", "..", "docs", "ci.md"))
	lines := ciBlock(t, doc, "## 4. GitLab CI")
	var vars map[string]string
	var script []string
	for i, l := range lines {
		trim := strings.TrimSpace(l)
		switch {
		case trim == "variables:":
			vars = mapAt(lines, i)
		case trim == "script:":
			for _, s := range lines[i+1:] {
				if !strings.HasPrefix(strings.TrimSpace(s), "- ") || indentOf(s) <= indentOf(l) {
					break
				}
				script = append(script, strings.TrimPrefix(strings.TrimSpace(s), "- "))
			}
		}
	}
	if vars == nil || len(script) == 0 {
		t.Fatal("docs/ci.md: the GitLab job has no variables or no script")
	}
	bin := goldtraceOnPath(t)
	work := t.TempDir()
	gold := ciProject(t, work)
	run := func(branch string, wrongEvery int) (int, string) {
		t.Helper()
		var sh []string
		for _, s := range script {
			switch {
			case strings.Contains(s, "go install "):
				continue
			case strings.Contains(s, "run_model.py"):
				writeRun(t, filepath.Join(work, gold), filepath.Join(work, "run.jsonl"), wrongEvery)
				continue
			}
			sh = append(sh, s)
		}
		cmd := exec.Command(bash, "-e", "-c", strings.Join(sh, "\n"))
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
			"CI_COMMIT_BRANCH="+branch, "CI_DEFAULT_BRANCH=main")
		for k, v := range vars {
			if k == "GOLD" {
				v = gold
			}
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	if code, out := run("main", 0); code != 0 {
		t.Fatalf("default branch: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(work, "baseline", "score.json")); err != nil {
		t.Fatal("default branch: the baseline was not kept")
	}
	code, out := run("fix-prompt", 10)
	if code != 1 {
		t.Fatalf("regressed merge request: exit %d, want 1\n%s", code, out)
	}
	if !strings.Contains(out, "exact_call") {
		t.Errorf("the job log lacks the markdown report:\n%s", out)
	}
	if !strings.Contains(readFile(t, filepath.Join(work, "score.xml")), "<failure") {
		t.Error("score.xml has no failures")
	}
}
