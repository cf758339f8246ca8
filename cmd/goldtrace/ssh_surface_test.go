package main

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/server/surface"
)

var fileWord = regexp.MustCompile(`(?i)\b(file|files|path|dir|directory|url)\b`)

// TestSSHSurfaceNamesRealCommandsAndFlags: every command and flag the SSH
// allow-list keeps exists in the local tree (a rename cannot silently
// drop or mistarget an entry), and none of the flags that name a server
// path, URL, listener or database is ever kept.
func TestSSHSurfaceNamesRealCommandsAndFlags(t *testing.T) {
	never := map[string]bool{"as": true, "db": true, "read-only": true, "out": true, "dir": true, "url": true,
		"listen": true, "host-key": true, "baseline": true, "judge": true, "judge-url": true, "judge-template": true,
		"template": true, "tools": true}
	root := newRootCmd(&CLI{Out: io.Discard, Err: io.Discard, remote: true})
	for path, spec := range surface.Commands {
		cmd, _, err := root.Find(strings.Fields(path))
		if err != nil || surface.CommandPath(cmd) != path {
			t.Errorf("surface.Commands lists %q, which is not a command", path)
			continue
		}
		for name, rule := range spec.Flags {
			f := cmd.Flags().Lookup(name)
			if f == nil {
				t.Errorf("%s: surface.Commands keeps --%s, which the command does not have", path, name)
				continue
			}
			// --tools is a file locally (predict); kept only as stdin.
			if never[name] && !(name == "tools" && rule == surface.StdinOnly) {
				t.Errorf("%s: surface.Commands keeps --%s, which names something on the server", path, name)
			}
			if rule == surface.AnyValue && f.Value.Type() == "string" && fileWord.MatchString(f.Usage) {
				t.Errorf("%s --%s reads as a file (%q) but has no value rule", path, name, f.Usage)
			}
		}
	}
}

// TestSSHHasNoCopy: goldtrace copy names two databases, so it does not
// exist over SSH, for a lead either: running it is an unknown command and
// creates nothing.
func TestSSHHasNoCopy(t *testing.T) {
	if _, ok := surface.Commands["copy"]; ok {
		t.Fatal("the SSH allow-list has copy")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "gt.db")
	if _, errOut, code, _ := runCLI(db, "", "users", "add", "carol", "--role", "lead"); code != 0 {
		t.Fatal(errOut)
	}
	lead := app.Actor{Name: "carol", Role: app.RoleLead, Source: app.SourceSSH, KeyFingerprint: "SHA256:test"}
	target := filepath.Join(dir, "copy.db")
	for _, args := range [][]string{{"copy", "--from", db, "--to", target}, {"copy", "--help"}, {"help", "copy"}} {
		out, err := sshRunAs(t, db, lead, "", args...)
		if err == nil && strings.Contains(out, "Copies everything") {
			t.Errorf("%v over SSH: %q", args, out)
		}
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Fatalf("copy over SSH created %s: %v", target, err)
	}
}
