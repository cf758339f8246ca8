package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/guide"
)

// tuiRun runs goldtrace with args against db and returns stdout and the error.
func tuiRun(t *testing.T, db string, args ...string) (string, error) {
	t.Helper()
	out, _, _, err := runCLI(db, "", args...)
	return out, err
}

func TestGuideCommands(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "gt.db")
	if _, err := tuiRun(t, db, "init"); err != nil {
		t.Fatal(err)
	}
	out, err := tuiRun(t, db, "guide", "show")
	if err != nil || out != guide.Default() {
		t.Fatalf("show before any set should print the default: %v\n%.200s", err, out)
	}
	file := filepath.Join(dir, "g.md")
	body := "# Our guide\n\n## get_order_status\nOne order.\n"
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := tuiRun(t, db, "guide", "set", file, "--as", "carol"); err == nil || !strings.Contains(err.Error(), `no user "carol"`) {
		t.Fatalf("unknown author: %v", err)
	}
	if _, err := tuiRun(t, db, "users", "add", "carol", "--role", "lead"); err != nil {
		t.Fatal(err)
	}
	out, err = tuiRun(t, db, "guide", "set", file, "--as", "carol")
	if err != nil || !strings.Contains(out, guide.ID(body)+" is in force (version 2, by carol)") {
		t.Fatalf("set: %v %q", err, out)
	}
	out, _ = tuiRun(t, db, "guide", "set", file, "--as", "carol")
	if !strings.Contains(out, "already in force") {
		t.Errorf("set again: %q", out)
	}
	if out, _ = tuiRun(t, db, "guide", "show"); out != body {
		t.Errorf("show: %q", out)
	}
	out, err = tuiRun(t, db, "guide", "log")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err != nil || len(lines) != 3 || !strings.Contains(lines[1], guide.ID(body)) || !strings.Contains(lines[1], "in force") ||
		!strings.Contains(lines[2], guide.ID(guide.Default())) {
		t.Errorf("log: %v\n%s", err, out)
	}
	if out, _ = tuiRun(t, db, "guide", "show", "--version", guide.ID(guide.Default())); out != guide.Default() {
		t.Errorf("show --version: %.80q", out)
	}
}
