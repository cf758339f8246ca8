package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/app"
)

// refusal is how every authorization refusal reads (app.DeniedError).
var refusal = regexp.MustCompile(`only a [a-z ]+ may `)

// TestAuthorizationTableThroughCommands walks the action × role table
// through the commands a user types: locally (--as NAME, or no identity)
// and as the SSH server runs them (the key's user in the context). Each
// command is refused exactly when app.Authorize refuses its action; an
// allowed command may still fail, but not with a refusal. The table itself
// is tested against a second, hand-written copy in app.
func TestAuthorizationTableThroughCommands(t *testing.T) {
	db, _ := rvDisputed(t)
	dir := t.TempDir()
	if _, errs, code := rvRun(t, db, "", "users", "add", "ci-bot", "--role", "ci", "--as", "carol"); code != 0 {
		t.Fatal(errs)
	}
	// SSH actors hold real keys: app checks on every action that the key is
	// still the actor's.
	keyOf := map[string]string{}
	for _, u := range []string{"alice", "bob", "carol", "ci-bot"} {
		keyOf[u] = addTestKey(t, db, u)
	}
	guideFile := filepath.Join(dir, "guide.md")
	if err := os.WriteFile(guideFile, []byte("# guide\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.jsonl")
	n := 0
	unique := func(name string) string { n++; return filepath.Join(dir, name+itoaTest(n)) }
	rows := []struct {
		action app.Action
		args   func() []string
		asFlag bool // the command takes --as
		screen bool // a TUI: only refusals are run
	}{
		{app.ActImport, func() []string { return []string{"import", missing} }, false, false},
		{app.ActTracesRead, func() []string { return []string{"traces"} }, false, false},
		{app.ActSample, func() []string {
			return []string{"sample", "--n", "1", "--reviewers", "alice,bob", "--batch", "s" + itoaTest(n)}
		}, false, false},
		{app.ActAssign, func() []string { return []string{"assign", "--release", "--from", "alice", "--to", "bob"} }, true, false},
		{app.ActBatchesRead, func() []string { return []string{"batches"} }, false, false},
		{app.ActQueueRead, func() []string { return []string{"label"} }, true, true},
		{app.ActLabelsReadOwn, func() []string { return []string{"labels", "export"} }, true, false},
		{app.ActLabelsImport, func() []string { return []string{"labels", "import", missing} }, true, false},
		{app.ActLabelsImportOthers, func() []string { return []string{"labels", "import", missing, "--for-others"} }, true, false},
		{app.ActStatusTotals, func() []string { return []string{"status"} }, true, false},
		{app.ActAdjudicate, func() []string { return []string{"resolve", "it_missing", "--pick", "alice", "--reason", "r"} }, true, false},
		{app.ActAdjudicate, func() []string { return []string{"adjudicate"} }, true, true},
		{app.ActGuideRead, func() []string { return []string{"guide", "log"} }, false, false},
		{app.ActGuideSet, func() []string { return []string{"guide", "set", guideFile} }, true, false},
		{app.ActSettingsRead, func() []string { return []string{"settings"} }, false, false},
		{app.ActSettingsSet, func() []string { return []string{"settings", "set", "review_agreed", "false"} }, true, false},
		{app.ActUsersRead, func() []string { return []string{"users", "list"} }, false, false},
		{app.ActUsersManage, func() []string { return []string{"users", "add", "zed" + itoaTest(n)} }, true, false},
		{app.ActExport, func() []string { return []string{"export", "support", "--out", unique("out")} }, true, false},
		{app.ActDatasetRead, func() []string { return []string{"datasets"} }, false, false},
		{app.ActScoreDataset, func() []string { return []string{"score", "--gold", "nope@v1"} }, false, false},
		{app.ActDashboard, func() []string { return []string{"dashboard"} }, true, true},
		{app.ActAuditRead, func() []string { return []string{"audit"} }, true, false},
		{app.ActMaintain, func() []string { return []string{"backup", unique("copy.db")} }, false, false},
		{app.ActMaintain, func() []string { return []string{"check"} }, false, false},
	}
	actors := []app.Actor{
		{Name: "alice", Role: app.RoleReviewer},
		{Name: "carol", Role: app.RoleLead},
		{Name: "ci-bot", Role: app.RoleCI},
	}
	check := func(t *testing.T, actor app.Actor, action app.Action, args []string, stderr string, code int) {
		t.Helper()
		refused := refusal.MatchString(stderr)
		if want := app.Authorize(actor, action) != nil; refused != want {
			t.Errorf("%s as %s (%s): refused %v, want %v: exit %d %s", action, actor, strings.Join(args, " "), refused, want, code, stderr)
		}
		if refused && code != 2 {
			t.Errorf("%s as %s: a refusal exits %d", action, actor, code)
		}
	}
	for _, row := range rows {
		// Locally without identity.
		nobody := app.Actor{Source: app.SourceLocal}
		if !row.screen || app.Authorize(nobody, row.action) != nil {
			args := row.args()
			_, errs, code := rvRun(t, db, "", args...)
			check(t, nobody, row.action, args, errs, code)
		}
		for _, actor := range actors {
			allowed := app.Authorize(actor, row.action) == nil
			if row.screen && allowed {
				continue
			}
			// Locally with --as, where the command takes it.
			if row.asFlag {
				local := actor
				local.Source = app.SourceLocal
				args := append(row.args(), "--as", actor.Name)
				_, errs, code := rvRun(t, db, "", args...)
				check(t, local, row.action, args, errs, code)
			}
			// As the SSH server runs it: the key's user in the context.
			ssh := actor
			ssh.Source, ssh.KeyFingerprint = app.SourceSSH, keyOf[actor.Name]
			args := row.args()
			_, errs, code := runAs(db, ssh, "", args...)
			check(t, ssh, row.action, args, errs, code)
		}
	}
}
