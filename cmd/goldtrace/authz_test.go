package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/app/render"
	"github.com/goldtrace/goldtrace/store"
)

// The tests in this file try what a dishonest reviewer would (issue 12):
// read the other reviewer's label before adjudication, submit in their name,
// learn whether they agreed, promote themselves, act without an identity.

// runAs runs goldtrace as the SSH server does: the context carries actor.
func runAs(db string, actor app.Actor, stdin string, args ...string) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	cli := NewCLI(strings.NewReader(stdin), &out, &errb)
	root := newRootCmd(cli)
	cli.DBPath = db // the server's database: no --db over SSH
	root.SetArgs(args)
	err := root.ExecuteContext(app.WithActor(context.Background(), actor))
	cli.Close()
	if err != nil {
		errb.WriteString("goldtrace: " + render.OneLine(err.Error()) + "\n")
		code = exitCode(err)
	}
	return out.String(), errb.String(), code
}

func TestDishonestReviewerCannotReadOtherLabels(t *testing.T) {
	db, _ := rvDisputed(t) // alice and bob disagree; nothing adjudicated yet
	own, _, code := rvRun(t, db, "", "labels", "export", "--as", "alice")
	if code != 0 || strings.Count(own, "\n") != 1 || !strings.Contains(own, `"reviewer":"alice"`) || strings.Contains(own, "bob") {
		t.Fatalf("alice's export: %d\n%s", code, own)
	}
	// Asking for bob's labels reads exactly like asking for a reviewer who
	// has none: not a refusal that would tell they exist.
	bobs, errs, code := rvRun(t, db, "", "labels", "export", "--as", "alice", "--reviewer", "bob")
	none, errs2, code2 := rvRun(t, db, "", "labels", "export", "--as", "alice", "--reviewer", "dave")
	if bobs != "" || bobs != none || errs != errs2 || code != code2 || code != 0 {
		t.Errorf("bob's labels as alice: %q %q %d; dave's (none): %q %q %d", bobs, errs, code, none, errs2, code2)
	}
	// No identity: refused once the project has users.
	if out, errs, code := rvRun(t, db, "", "labels", "export"); code != 2 || out != "" || !strings.Contains(errs, "--as NAME is required") {
		t.Errorf("anonymous export: %d %q %s", code, out, errs)
	}
	// The lead reads everything, and that read is in the audit log.
	all, _, code := rvRun(t, db, "", "labels", "export", "--as", "carol")
	if code != 0 || strings.Count(all, "\n") != 2 {
		t.Fatalf("lead's export: %d\n%s", code, all)
	}
	log, _, code := rvRun(t, db, "", "audit", "--as", "carol", "--json")
	var entries []store.AuditEntry
	if err := json.Unmarshal([]byte(log), &entries); err != nil || code != 0 {
		t.Fatalf("audit: %v %d\n%s", err, code, log)
	}
	var sawLeadRead, sawDenied bool
	for _, e := range entries {
		sawLeadRead = sawLeadRead || (e.Actor == "carol" && e.Action == "labels.read-all" && e.Outcome == "ok")
		sawDenied = sawDenied || (e.Actor == "" && e.Action == "labels.read-own" && e.Outcome == "denied")
	}
	if !sawLeadRead || !sawDenied {
		t.Errorf("audit lacks the lead's read (%v) or the anonymous refusal (%v):\n%s", sawLeadRead, sawDenied, log)
	}
	// A new project with no users: nothing to hide, nothing exported.
	empty := filepath.Join(t.TempDir(), "empty.db")
	if _, errs, code := rvRun(t, empty, "", "init"); code != 0 {
		t.Fatalf("init: %s", errs)
	}
	if out, errs, code := rvRun(t, empty, "", "labels", "export"); code != 0 || out != "" {
		t.Errorf("anonymous export of an empty project: %d %q %s", code, out, errs)
	}
}

func TestDishonestReviewerCannotImportInAnotherName(t *testing.T) {
	db, items := lblProject(t, 2)
	// alice submits a label in bob's name to manufacture agreement.
	forged := lblWrite(t, lblLine(items[0], "alice", "no_call", ""), lblLine(items[0], "bob", "no_call", ""))
	_, errs, code := rvRun(t, db, "", "labels", "import", forged, "--as", "alice")
	if code != 2 || !strings.Contains(errs, ":2: reviewer bob is not you (alice)") {
		t.Fatalf("forged import: %d %s", code, errs)
	}
	// --for-others is a lead's: alice cannot use it.
	if _, errs, code := rvRun(t, db, "", "labels", "import", forged, "--as", "alice", "--for-others"); code != 2 || !strings.Contains(errs, "alice is a reviewer; only a lead may import labels in other reviewers' names") {
		t.Fatalf("--for-others as a reviewer: %d %s", code, errs)
	}
	// No identity: refused.
	if _, errs, code := rvRun(t, db, "", "labels", "import", forged); code != 2 || !strings.Contains(errs, "--as NAME is required") {
		t.Fatalf("anonymous import: %d %s", code, errs)
	}
	// Even a lead needs --for-others for someone else's label.
	if _, errs, code := rvRun(t, db, "", "labels", "import", forged, "--as", "carol"); code != 2 || !strings.Contains(errs, "only with --for-others") {
		t.Fatalf("lead without --for-others: %d %s", code, errs)
	}
	// alice's own label, then bob's: neither summary tells whether they agreed.
	mine := lblWrite(t, lblLine(items[0], "alice", "no_call", ""))
	if out, errs, code := rvRun(t, db, "", "labels", "import", mine, "--as", "alice", "--json"); code != 0 || strings.Contains(out, "agreed") || strings.Contains(out, "disputed") {
		t.Fatalf("alice's import: %d %s %s", code, out, errs)
	}
	bobs := lblWrite(t, lblLine(items[0], "bob", "call", `[{"tool":"get_order_status","args":{"order_id":"ORD-12345"}}]`))
	out, errs, code := rvRun(t, db, "", "labels", "import", bobs, "--as", "bob")
	if code != 0 || out != "imported 1 label from "+bobs+"\n" {
		t.Fatalf("bob's import: %d %q %s", code, out, errs)
	}
	// The lead imports for a reviewer with --for-others, sees the split, and
	// the audit log says it was in another's name.
	forAlice := lblWrite(t, lblLine(items[1], "alice", "no_call", ""), lblLine(items[1], "bob", "no_call", ""))
	out, errs, code = rvRun(t, db, "", "labels", "import", forAlice, "--as", "carol", "--for-others")
	if code != 0 || !strings.Contains(out, "1 item agreed, 0 disputed") {
		t.Fatalf("lead for others: %d %q %s", code, out, errs)
	}
	log, _, _ := rvRun(t, db, "", "audit", "--as", "carol", "--action", "labels.import-others")
	if !strings.Contains(log, "2 labels from "+forAlice+" (2 in other reviewers' names)") {
		t.Errorf("audit of the lead's import:\n%s", log)
	}
}

func TestDishonestReviewerCannotPromoteThemselves(t *testing.T) {
	db := filepath.Join(t.TempDir(), "gt.db")
	// Bootstrap: a new project has no lead, so the first users need no identity.
	for _, args := range [][]string{{"users", "add", "alice"}, {"users", "add", "carol", "--role", "lead"}} {
		if _, errs, code := rvRun(t, db, "", args...); code != 0 {
			t.Fatalf("%v: %s", args, errs)
		}
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no identity", []string{"users", "add", "alice", "--role", "lead"}, "only a lead may add users or change roles: --as LEAD is required"},
		{"herself", []string{"users", "add", "alice", "--role", "lead", "--as", "alice"}, "alice is a reviewer; only a lead may add users"},
		{"an accomplice", []string{"users", "add", "mallory", "--role", "lead", "--as", "alice"}, "alice is a reviewer; only a lead may add users"},
		{"the last lead demoted", []string{"users", "add", "carol", "--role", "reviewer", "--as", "carol"}, "carol is the project's only lead"},
		{"a bad role", []string{"users", "add", "x", "--role", "admin", "--as", "carol"}, `role must be reviewer, lead or ci, not "admin"`},
	} {
		if _, errs, code := rvRun(t, db, "", tc.args...); code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: %d %s", tc.name, code, errs)
		}
	}
	out, _, _ := rvRun(t, db, "", "users", "list", "--json")
	if strings.Contains(out, "mallory") || strings.Count(out, `"lead"`) != 1 {
		t.Errorf("users after the attempts:\n%s", out)
	}
	if _, errs, code := rvRun(t, db, "", "users", "add", "ci-bot", "--role", "ci", "--as", "carol"); code != 0 {
		t.Errorf("the lead adds a ci user: %s", errs)
	}
}

func TestLeadOnlyCommandsNeedALeadIdentity(t *testing.T) {
	db, item := rvDisputed(t)
	guideFile := filepath.Join(t.TempDir(), "guide.md")
	if err := os.WriteFile(guideFile, []byte("# my guide\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	for _, cmd := range [][]string{
		{"export", "support", "--out", out},
		{"resolve", item, "--pick", "alice", "--reason", "r"},
		{"resolve", item, "--send-back", "--reason", "r"},
		{"settings", "set", "review_agreed", "true"},
		{"guide", "set", guideFile},
		{"audit"},
	} {
		if _, errs, code := rvRun(t, db, "", cmd...); code != 2 || !strings.Contains(errs, "only a lead may") || !strings.Contains(errs, "--as LEAD is required") {
			t.Errorf("%v without identity: %d %s", cmd, code, errs)
		}
		asAlice := append(append([]string{}, cmd...), "--as", "alice")
		if _, errs, code := rvRun(t, db, "", asAlice...); code != 2 || !strings.Contains(errs, "alice is a reviewer; only a lead may") {
			t.Errorf("%v as alice: %d %s", cmd, code, errs)
		}
	}
	// Nothing changed: the item is still disputed and the guide is the default.
	status, _, _ := rvRun(t, db, "", "status", "--as", "carol", "--json")
	if !strings.Contains(status, `"disputed": 1`) {
		t.Errorf("the item changed:\n%s", status)
	}
	if out, _, _ := rvRun(t, db, "", "guide", "show"); strings.Contains(out, "my guide") {
		t.Error("the guide changed")
	}
	// The refusals are in the audit log.
	log, _, _ := rvRun(t, db, "", "audit", "--as", "carol", "--actor", "alice")
	for _, action := range []string{"export", "adjudicate", "settings.set", "guide.set", "audit.read"} {
		if !strings.Contains(log, action) {
			t.Errorf("audit lacks alice's refused %s:\n%s", action, log)
		}
	}
}

func TestStatusDetailsAreALeads(t *testing.T) {
	db, _ := rvDisputed(t)
	out, _, code := rvRun(t, db, "", "status", "--as", "alice", "--json")
	var s store.Status
	if err := json.Unmarshal([]byte(out), &s); err != nil || code != 0 || s.View != store.ViewReviewer || s.Items.Disputed != nil || s.Agreement != nil || s.Disputes != nil {
		t.Errorf("alice's status: %v\n%s", err, out)
	}
	// Over SSH, --as is refused: alice's key cannot ask as carol.
	// (An SSH actor's key must be theirs: app re-checks it on every action.)
	alice := app.Actor{Name: "alice", Role: app.RoleReviewer, Source: app.SourceSSH, KeyFingerprint: addTestKey(t, db, "alice")}
	if _, errs, code := runAs(db, alice, "", "status", "--as", "carol"); code != 2 || !strings.Contains(errs, "--as is not accepted here: you are "+alice.String()) {
		t.Errorf("--as over ssh: %d %s", code, errs)
	}
	if _, errs, code := runAs(db, alice, "", "--db", db, "status"); code != 2 || !strings.Contains(errs, "--db is not accepted here") {
		t.Errorf("--db over ssh: %d %s", code, errs)
	}
	out, errs, code := runAs(db, alice, "", "status", "--json")
	if err := json.Unmarshal([]byte(out), &s); err != nil || code != 0 || s.View != store.ViewReviewer || s.As != "alice" {
		t.Errorf("alice's status over ssh: %v %s\n%s", err, errs, out)
	}
	// A ci key reads datasets and nothing else.
	if _, errs, code := rvRun(t, db, "", "users", "add", "ci-bot", "--role", "ci", "--as", "carol"); code != 0 {
		t.Fatal(errs)
	}
	bot := app.Actor{Name: "ci-bot", Role: app.RoleCI, Source: app.SourceSSH, KeyFingerprint: addTestKey(t, db, "ci-bot")}
	for _, cmd := range [][]string{{"status"}, {"labels", "export"}, {"traces"}} {
		if _, errs, code := runAs(db, bot, "", cmd...); code != 2 || !strings.Contains(errs, bot.String()+" is a ci; only a") {
			t.Errorf("%v as ci: %d %s", cmd, code, errs)
		}
	}
	if out, errs, code := runAs(db, bot, "", "datasets"); code != 0 {
		t.Errorf("datasets as ci: %d %s %s", code, out, errs)
	}
}

// addTestKey gives user a fresh SSH key (as lead carol) and returns its
// fingerprint.
func addTestKey(t *testing.T, db, user string) string {
	t.Helper()
	k := newKey(t)
	if _, errs, code := rvRun(t, db, keyLineOf(k, user)+"\n", "users", "key", "add", user, "-", "--as", "carol"); code != 0 {
		t.Fatalf("users key add %s: %s", user, errs)
	}
	return gossh.FingerprintSHA256(k.PublicKey())
}
