package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/trace/synth"
)

// sshRow is one action of the authorization table tried over SSH: the
// command line a user of role sends for it, and, where the refusal is
// hidden (what one may not see answers like what does not exist), how to
// tell it from being allowed.
type sshRow struct {
	args  func(role string) []string
	stdin func(role string) string
	// allowed judges a run the table allows; nil: exit 0. refused judges one
	// it refuses; nil: exit 2 with app's refusal ("… is a ROLE; only a …").
	allowed, refused func(out, errOut string, code int) bool
	// serverOnly: the action's command runs on the server only, for every
	// role (README: assign is not over SSH).
	serverOnly bool
}

// TestServeAuthorizationTable walks app's action × role table over SSH:
// every action, as a reviewer, a lead and a ci key, each through the
// command a user would type (screens through the session a key opens), and
// checks the server allows exactly what app.Authorize allows. An action
// added to the table without a row here fails the test.
func TestServeAuthorizationTable(t *testing.T) {
	ts := startTeamServer(t, 20, 6)
	ciKey := newKey(t)
	if _, errOut, code := ts.run("carol", keyLineOf(ciKey, "ci")+"\n", "users", "add", "ci-bot", "--role", "ci", "--key", "-"); code != 0 {
		t.Fatal(errOut)
	}
	ts.keys["ci-bot"] = ciKey
	// alice and bob agree on every item but the first, which is disputed;
	// the lead exports the agreed ones as gold@v1.
	for _, r := range []string{"alice", "bob"} {
		var in bytes.Buffer
		for i, id := range ts.items {
			l := review.Label{Item: id, Reviewer: r, Decision: review.DecisionNoCall, Calls: []review.LabelCall{}, Rationale: "no tool", Seconds: 5}
			if i == 0 && r == "bob" {
				l.Decision, l.Calls = review.DecisionCall, []review.LabelCall{{Tool: "lookup_customer", Args: json.RawMessage(`{"email":"a@b.c"}`)}}
			}
			b, _ := json.Marshal(l)
			in.Write(append(b, '\n'))
		}
		if _, errOut, code := ts.run(r, in.String(), "labels", "import", "-"); code != 0 {
			t.Fatalf("%s labels import: %s", r, errOut)
		}
	}
	if _, errOut, code := ts.run("carol", "", "export", "gold", "--allow-partial"); code != 0 {
		t.Fatalf("export gold: %s", errOut)
	}
	disputed := ts.items[0]
	users := map[app.Role]string{app.RoleReviewer: "alice", app.RoleLead: "carol", app.RoleCI: "ci-bot"}

	none := func(string) string { return "" }
	cmd := func(args ...string) func(string) []string { return func(string) []string { return args } }
	denied := func(out, errOut string, code int) bool { return code == 2 && strings.Contains(errOut, "; only a ") }
	rows := map[app.Action]sshRow{
		app.ActImport: {args: cmd("import", "-"), stdin: func(role string) string {
			var b bytes.Buffer
			synth.Write(&b, synth.Options{Seed: 5, N: 1, Prefix: "imp-" + role + "-"})
			return b.String()
		}},
		app.ActTracesRead: {args: cmd("traces")},
		app.ActSample: {args: func(role string) []string {
			return []string{"sample", "--n", "1", "--seed", "1", "--per-item", "1", "--reviewers", "alice", "--batch", "s-" + role}
		}},
		app.ActAssign: {args: cmd("assign", "--release", "--from", "alice", "--to", "bob"), serverOnly: true,
			refused: func(_, errOut string, code int) bool {
				return code == 2 && strings.Contains(errOut, "not available over SSH")
			}},
		app.ActBatchesRead: {args: cmd("batches")},
		app.ActLabelsReadOwn: {args: cmd("labels", "export"),
			allowed: func(out, _ string, code int) bool { return code == 0 && strings.Contains(out, `"item"`) }},
		// Another reviewer's labels: a reviewer gets nothing, as if there
		// were none.
		app.ActLabelsReadAll: {args: cmd("labels", "export", "--reviewer", "bob"),
			allowed: func(out, _ string, code int) bool { return code == 0 && strings.Contains(out, `"reviewer":"bob"`) },
			refused: func(out, errOut string, code int) bool {
				return denied(out, errOut, code) || (code == 0 && !strings.Contains(out, `"reviewer":"bob"`))
			}},
		// Importing in one's own name: refused only by the table (a
		// label for an item one is not assigned is a different error).
		app.ActLabelsImport: {args: cmd("labels", "import", "-"),
			stdin: func(role string) string {
				b, _ := json.Marshal(review.Label{Item: ts.items[1], Reviewer: users[app.Role(role)], Decision: review.DecisionNoCall, Calls: []review.LabelCall{}, Rationale: "x"})
				return string(b) + "\n"
			},
			allowed: func(out, errOut string, code int) bool { return !denied(out, errOut, code) }},
		app.ActLabelsImportOthers: {args: cmd("labels", "import", "-", "--for-others"),
			stdin: func(string) string {
				b, _ := json.Marshal(review.Label{Item: ts.items[1], Reviewer: "bob", Decision: review.DecisionNoCall, Calls: []review.LabelCall{}, Rationale: "x"})
				return string(b) + "\n"
			},
			allowed: func(out, errOut string, code int) bool { return !denied(out, errOut, code) }},
		app.ActStatusTotals: {args: cmd("status")},
		// Details are a lead's view of status, not a separate command.
		app.ActStatusDetails: {args: cmd("status"),
			allowed: func(out, _ string, code int) bool { return code == 0 && strings.Contains(out, "status as lead") },
			refused: func(out, errOut string, code int) bool {
				return denied(out, errOut, code) || (code == 0 && !strings.Contains(out, "status as lead"))
			}},
		app.ActAdjudicate:   {args: cmd("resolve", disputed, "--pick", "alice", "--reason", "per-guide")},
		app.ActGuideRead:    {args: cmd("guide", "show")},
		app.ActGuideSet:     {args: cmd("guide", "set", "-"), stdin: func(role string) string { return "# guide by " + role + "\n" }},
		app.ActSettingsRead: {args: cmd("settings")},
		app.ActSettingsSet:  {args: cmd("settings", "set", "review_agreed", "false")},
		app.ActUsersRead:    {args: cmd("users", "list")},
		app.ActUsersManage:  {args: func(role string) []string { return []string{"users", "add", "zed-" + role} }},
		app.ActExport:       {args: func(role string) []string { return []string{"export", "gold-" + role, "--allow-partial"} }},
		app.ActDatasetRead:  {args: cmd("datasets", "get", "gold@v1")},
		app.ActScoreDataset: {args: cmd("score", "--gold", "gold@v1")},
		app.ActAuditRead:    {args: cmd("audit")},
		app.ActMaintain:     {args: cmd("check")},
	}
	// Screens: a session without a command opens the key's home, which
	// needs the queue (reviewer) or the dashboard (lead, which scores the
	// store's gold).
	screens := map[app.Action]bool{app.ActQueueRead: true, app.ActLabelSubmit: true, app.ActLabelReopen: true,
		app.ActDashboard: true, app.ActScoreStore: true}

	for _, action := range app.Actions() {
		if screens[action] {
			continue
		}
		row, ok := rows[action]
		if !ok {
			t.Errorf("action %s has no SSH row in this test", action)
			continue
		}
		if row.stdin == nil {
			row.stdin = none
		}
		for _, role := range []app.Role{app.RoleReviewer, app.RoleLead, app.RoleCI} {
			user := users[role]
			want := !row.serverOnly && app.Authorize(app.Actor{Name: user, Role: role, Source: app.SourceSSH, KeyFingerprint: "x"}, action) == nil
			args := row.args(string(role))
			out, errOut, code := ts.run(user, row.stdin(string(role)), args...)
			judge := row.refused
			if want {
				judge = row.allowed
			}
			if judge == nil && want {
				judge = func(_, _ string, code int) bool { return code == 0 }
			} else if judge == nil {
				judge = denied
			}
			if !judge(out, errOut, code) {
				verb := "refused"
				if want {
					verb = "allowed"
				}
				t.Errorf("%s as %s (ssh -- %s): want %s; exit %d, stderr %q, stdout %.200q",
					action, role, strings.Join(args, " "), verb, code, errOut, out)
			}
		}
	}

	// The screens: reviewer → label queue, lead → dashboard, ci → none.
	for role, want := range map[app.Role]string{app.RoleReviewer: "alice", app.RoleLead: "Preview"} {
		action := app.ActQueueRead
		if role == app.RoleLead {
			action = app.ActDashboard
		}
		if err := app.Authorize(app.Actor{Name: users[role], Role: role}, action); err != nil {
			t.Fatalf("the %s's home needs %s, which the table refuses: %v", role, action, err)
		}
		p := ts.openScreen(users[role])
		p.waitFor(want)
		p.send("\x03")
		if code := p.exit(); code != 0 {
			t.Errorf("%s's screen: exit %d", role, code)
		}
	}
	for _, action := range []app.Action{app.ActQueueRead, app.ActDashboard} {
		if app.Authorize(app.Actor{Name: "ci-bot", Role: app.RoleCI}, action) == nil {
			t.Fatalf("the table lets ci %s, but a ci key gets no screen", action)
		}
	}
	p := ts.openScreen("ci-bot")
	if code := p.exit(); code != 2 {
		t.Errorf("ci screen: exit %d, %q", code, p.screen())
	}
}
