package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/app/render"
)

// runIn runs goldtrace as main would, without adding --db, in dir with the
// given environment.
func runIn(t *testing.T, dir string, env map[string]string, args ...string) (string, string, int) {
	t.Helper()
	t.Chdir(dir)
	for _, k := range []string{"GOLDTRACE_DB", "XDG_CONFIG_HOME"} {
		t.Setenv(k, env[k])
	}
	var out, errb bytes.Buffer
	cli := NewCLI(strings.NewReader(""), &out, &errb)
	root := newRootCmd(cli)
	root.SetArgs(args)
	err := cli.runErr(root.ExecuteContext(context.Background()))
	cli.Close()
	if err != nil {
		errb.WriteString("goldtrace: " + render.OneLine(err.Error()) + "\n")
		return out.String(), errb.String(), exitCode(err)
	}
	return out.String(), errb.String(), 0
}

// TestDatabaseIsNeverCreatedByAccident: commands other than init, import,
// demo and users add refuse a missing database, naming it; init creates
// it.
func TestDatabaseIsNeverCreatedByAccident(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"XDG_CONFIG_HOME": filepath.Join(dir, "xdg")}
	for _, args := range [][]string{{"status"}, {"label", "--as", "alice"}, {"sample", "--reviewers", "a,b"}, {"export", "support"}, {"guide", "show"}} {
		_, errOut, code := runIn(t, dir, env, args...)
		if code != 2 || !strings.Contains(errOut, "no goldtrace database at ./goldtrace.db (set --db or GOLDTRACE_DB, or run goldtrace init)") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
		if _, err := os.Stat(filepath.Join(dir, "goldtrace.db")); err == nil {
			t.Fatalf("%v created the database", args)
		}
	}
	if _, errOut, code := runIn(t, dir, env, "init"); code != 0 {
		t.Fatalf("init: %s", errOut)
	}
	if _, errOut, code := runIn(t, dir, env, "init"); code != 2 || !strings.Contains(errOut, "already a goldtrace database at ./goldtrace.db") {
		t.Errorf("second init: exit %d, %s", code, errOut)
	}
	if _, errOut, code := runIn(t, dir, env, "status"); code != 0 {
		t.Errorf("status after init: %s", errOut)
	}
	// users add may start a project (the bootstrap).
	other := filepath.Join(dir, "other.db")
	if _, errOut, code := runIn(t, dir, env, "users", "add", "carol", "--role", "lead", "--db", other); code != 0 {
		t.Errorf("users add on a new database: %s", errOut)
	}
}

// TestConfigFiles: goldtrace.toml in the working directory and the user's
// config file set db and as; flags and GOLDTRACE_DB win; whoami says
// which is in effect and from where.
func TestConfigFiles(t *testing.T) {
	dir := t.TempDir()
	xdg := filepath.Join(dir, "xdg")
	if err := os.MkdirAll(filepath.Join(xdg, "goldtrace"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(xdg, "goldtrace", "config.toml"), "db = \"user.db\"\nas = \"bob\"\n")
	env := map[string]string{"XDG_CONFIG_HOME": xdg}
	whoami := func(env map[string]string, args ...string) app.Whoami {
		t.Helper()
		out, errOut, code := runIn(t, dir, env, append([]string{"whoami", "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("whoami: %s", errOut)
		}
		var r app.Whoami
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	userFile := filepath.Join(xdg, "goldtrace", "config.toml")
	if r := whoami(env); r.Database != "user.db" || r.DatabaseFrom != userFile || r.As != "bob" || r.AsFrom != userFile {
		t.Errorf("user config: %+v", r)
	}
	writeFile(t, filepath.Join(dir, "goldtrace.toml"), "db = \"project.db\"\nas = \"carol\"\n")
	if r := whoami(env); r.Database != "project.db" || r.DatabaseFrom != "goldtrace.toml" || r.As != "carol" || len(r.ConfigFiles) != 2 {
		t.Errorf("project config over the user's: %+v", r)
	}
	if r := whoami(map[string]string{"XDG_CONFIG_HOME": xdg, "GOLDTRACE_DB": "env.db"}); r.Database != "env.db" || r.DatabaseFrom != "GOLDTRACE_DB" {
		t.Errorf("GOLDTRACE_DB over the config: %+v", r)
	}
	if r := whoami(env, "--db", "flag.db", "--as", "alice"); r.Database != "flag.db" || r.DatabaseFrom != "--db" || r.As != "alice" || r.AsFrom != "--as" {
		t.Errorf("flags over everything: %+v", r)
	}
	// The configured identity reaches a command that takes --as, and the
	// role is shown once the database knows the user.
	if _, errOut, code := runIn(t, dir, env, "init"); code != 0 {
		t.Fatal(errOut)
	}
	if _, errOut, code := runIn(t, dir, env, "users", "add", "carol", "--role", "lead"); code != 0 {
		t.Fatal(errOut)
	}
	if r := whoami(env); r.Role != "lead" || !r.Exists {
		t.Errorf("whoami after users add: %+v", r)
	}
	out, errOut, code := runIn(t, dir, env, "status")
	if code != 0 || !strings.Contains(out, "lead carol") {
		t.Errorf("status with as from the config: exit %d %s %s", code, out, errOut)
	}
	// A command whose --as means something else (sample's is for --stale)
	// takes the configured identity as a default, never as a typed flag.
	if _, errOut, code := runIn(t, dir, env, "sample", "--n", "1", "--dry-run"); code == 2 && strings.Contains(errOut, "--stale") {
		t.Errorf("sample with as from the config: %s", errOut)
	}
	// A bad config file is a one-line error naming the line and the key.
	writeFile(t, filepath.Join(dir, "goldtrace.toml"), "db = \"project.db\"\nreviewer = \"x\"\n")
	if _, errOut, code := runIn(t, dir, env, "status"); code != 2 || errOut != "goldtrace: goldtrace.toml:2: unknown key \"reviewer\" (a config sets db and as)\n" {
		t.Errorf("bad config: exit %d, %q", code, errOut)
	}
}
