package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	gapp "github.com/goldtrace/goldtrace/app"
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
		action gapp.Action
		args   func() []string
		asFlag bool // the command takes --as
		screen bool // a TUI: only refusals are run
	}{
		{gapp.ActImport, func() []string { return []string{"import", missing} }, false, false},
		{gapp.ActTracesRead, func() []string { return []string{"traces"} }, false, false},
		{gapp.ActSample, func() []string {
			return []string{"sample", "--n", "1", "--reviewers", "alice,bob", "--batch", "s" + itoaTest(n)}
		}, false, false},
		{gapp.ActAssign, func() []string { return []string{"assign", "--release", "--from", "alice", "--to", "bob"} }, true, false},
		{gapp.ActBatchesRead, func() []string { return []string{"batches"} }, false, false},
		{gapp.ActQueueRead, func() []string { return []string{"label"} }, true, true},
		{gapp.ActLabelsReadOwn, func() []string { return []string{"labels", "export"} }, true, false},
		{gapp.ActLabelsImport, func() []string { return []string{"labels", "import", missing} }, true, false},
		{gapp.ActLabelsImportOthers, func() []string { return []string{"labels", "import", missing, "--for-others"} }, true, false},
		{gapp.ActStatusTotals, func() []string { return []string{"status"} }, true, false},
		{gapp.ActAdjudicate, func() []string { return []string{"resolve", "it_missing", "--pick", "alice", "--reason", "r"} }, true, false},
		{gapp.ActAdjudicate, func() []string { return []string{"adjudicate"} }, true, true},
		{gapp.ActGuideRead, func() []string { return []string{"guide", "log"} }, false, false},
		{gapp.ActGuideSet, func() []string { return []string{"guide", "set", guideFile} }, true, false},
		{gapp.ActSettingsRead, func() []string { return []string{"settings"} }, false, false},
		{gapp.ActSettingsSet, func() []string { return []string{"settings", "set", "review_agreed", "false"} }, true, false},
		{gapp.ActUsersRead, func() []string { return []string{"users", "list"} }, false, false},
		{gapp.ActUsersManage, func() []string { return []string{"users", "add", "zed" + itoaTest(n)} }, true, false},
		{gapp.ActExport, func() []string { return []string{"export", "support", "--out", unique("out")} }, true, false},
		{gapp.ActDatasetRead, func() []string { return []string{"datasets"} }, false, false},
		{gapp.ActScoreDataset, func() []string { return []string{"score", "--gold", "nope@v1"} }, false, false},
		{gapp.ActDashboard, func() []string { return []string{"dashboard"} }, true, true},
		{gapp.ActAuditRead, func() []string { return []string{"audit"} }, true, false},
		{gapp.ActMaintain, func() []string { return []string{"backup", unique("copy.db")} }, false, false},
		{gapp.ActMaintain, func() []string { return []string{"check"} }, false, false},
	}
	actors := []gapp.Actor{
		{Name: "alice", Role: gapp.RoleReviewer},
		{Name: "carol", Role: gapp.RoleLead},
		{Name: "ci-bot", Role: gapp.RoleCI},
	}
	check := func(t *testing.T, actor gapp.Actor, action gapp.Action, args []string, stderr string, code int) {
		t.Helper()
		refused := refusal.MatchString(stderr)
		if want := gapp.Authorize(actor, action) != nil; refused != want {
			t.Errorf("%s as %s (%s): refused %v, want %v: exit %d %s", action, actor, strings.Join(args, " "), refused, want, code, stderr)
		}
		if refused && code != 2 {
			t.Errorf("%s as %s: a refusal exits %d", action, actor, code)
		}
	}
	for _, row := range rows {
		// Locally without identity.
		nobody := gapp.Actor{Source: gapp.SourceLocal}
		if !row.screen || gapp.Authorize(nobody, row.action) != nil {
			args := row.args()
			_, errs, code := rvRun(t, db, "", args...)
			check(t, nobody, row.action, args, errs, code)
		}
		for _, actor := range actors {
			allowed := gapp.Authorize(actor, row.action) == nil
			if row.screen && allowed {
				continue
			}
			// Locally with --as, where the command takes it.
			if row.asFlag {
				local := actor
				local.Source = gapp.SourceLocal
				args := append(row.args(), "--as", actor.Name)
				_, errs, code := rvRun(t, db, "", args...)
				check(t, local, row.action, args, errs, code)
			}
			// As the SSH server runs it: the key's user in the context.
			ssh := actor
			ssh.Source, ssh.KeyFingerprint = gapp.SourceSSH, keyOf[actor.Name]
			args := row.args()
			_, errs, code := runAs(db, ssh, "", args...)
			check(t, ssh, row.action, args, errs, code)
		}
	}
}
