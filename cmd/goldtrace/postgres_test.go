package main

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/internal/pgtest"
	"github.com/goldtrace/goldtrace/store"
)

// pgSecret is a password the test server (trust authentication) ignores:
// every output is searched for it.
const pgSecret = "pw-must-never-show"

// TestPostgresProject drives the commands that work on PostgreSQL end to
// end on a database of its own, with the password in the DSN, and checks
// that the others refuse in one line, exit 2, before touching it.
func TestPostgresProject(t *testing.T) {
	u, err := url.Parse(pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), pgSecret)
	db := u.String()
	clean, _ := store.RedactDSN(db)
	traces := filepath.Join(t.TempDir(), "traces.jsonl")
	var all strings.Builder
	run := func(want int, args ...string) string {
		t.Helper()
		out, errOut, code, _ := runCLI(db, "", args...)
		all.WriteString(out + errOut)
		if code != want {
			t.Fatalf("goldtrace %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, out, errOut)
		}
		return out + errOut
	}
	if out := run(0, "whoami"); !strings.Contains(out, "does not exist yet") || !strings.Contains(out, clean) {
		t.Errorf("whoami before init:\n%s", out)
	}
	if out := run(2, "users", "list"); !strings.Contains(out, "no goldtrace database at "+clean) {
		t.Errorf("users list before init:\n%s", out)
	}
	if exists, err := store.ProjectExists(context.Background(), db, ""); err != nil || exists {
		t.Fatalf("a refused command created the project: %v %v", exists, err)
	}
	run(0, "init")
	if out := run(2, "init"); !strings.Contains(out, "already a goldtrace project in "+clean) {
		t.Errorf("second init:\n%s", out)
	}
	run(0, "users", "add", "carol", "--role", "lead")
	run(0, "users", "add", "alice", "--role", "reviewer", "--as", "carol")
	run(0, "users", "add", "bob", "--role", "reviewer", "--as", "carol")
	if out := run(0, "users", "list"); !strings.Contains(out, "alice  reviewer") || !strings.Contains(out, "carol  lead") {
		t.Errorf("users list:\n%s", out)
	}
	if out := run(0, "whoami", "--as", "carol"); !strings.Contains(out, "carol, lead") {
		t.Errorf("whoami --as carol:\n%s", out)
	}
	if _, errOut, code, _ := runCLI(filepath.Join(t.TempDir(), "unused.db"), "", "demo", "--write-traces", "60", traces, "--seed", "3"); code != 0 {
		t.Fatal(errOut)
	}
	if out := run(0, "import", traces); !strings.Contains(out, "imported 60 traces") {
		t.Errorf("import:\n%s", out)
	}
	if out := run(0, "import", traces); !strings.Contains(out, "60 already stored") {
		t.Errorf("import again:\n%s", out)
	}
	run(0, "sample", "--n", "10", "--by", "tool", "--seed", "5", "--reviewers", "alice,bob")
	if out := run(0, "status", "--as", "carol"); !strings.Contains(out, "20 assignments: 20 pending") {
		t.Errorf("status:\n%s", out)
	}
	guide := filepath.Join(t.TempDir(), "guide.md")
	if err := os.WriteFile(guide, []byte("# Guide\n\nCall a tool when the user asks.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	key := "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGhAuqdE8bUuUHRgmDv6eMB5GvZ5jdcVg4eHHBfOAq4i alice@test"
	keyFile := filepath.Join(t.TempDir(), "alice.pub")
	if err := os.WriteFile(keyFile, []byte(key+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		args []string
		want string
	}{
		{[]string{"batches"}, "alice,bob"},
		{[]string{"traces"}, "60"},
		{[]string{"datasets"}, "no datasets yet"},
		{[]string{"settings", "set", "review_agreed", "true", "--as", "carol"}, ""},
		{[]string{"settings"}, "review_agreed = true"},
		{[]string{"guide", "set", guide, "--as", "carol"}, "is in force"},
		{[]string{"guide", "show"}, "Call a tool when the user asks."},
		{[]string{"guide", "log"}, "carol"},
		{[]string{"users", "key", "add", "alice", keyFile, "--as", "carol"}, "added"},
		{[]string{"users", "list"}, "SHA256:"},
		{[]string{"users", "remove", "bob", "--as", "carol"}, "keys removed"},
		{[]string{"check"}, ": ok"},
		{[]string{"demo", "--write-traces", "3", filepath.Join(t.TempDir(), "t.jsonl")}, "wrote 3 traces"},
	} {
		if out := run(0, step.args...); !strings.Contains(out, step.want) {
			t.Errorf("goldtrace %s: want %q in\n%s", strings.Join(step.args, " "), step.want, out)
		}
	}
	for _, args := range [][]string{
		{"sample", "--stale", "gold@v1", "--tools", keyFile, "--as", "carol"}, {"sample", "--by", "disagreement", "--runs", keyFile},
	} {
		// Both work on PostgreSQL now: a missing version and a file that is
		// not a prediction run are one-line usage errors, as on SQLite.
		out := run(2, args...)
		if strings.Contains(out, "is not available on PostgreSQL yet") || strings.Count(strings.TrimSpace(out), "\n") != 0 {
			t.Errorf("goldtrace %s on PostgreSQL:\n%s", strings.Join(args, " "), out)
		}
	}
	if out := run(2, "serve"); !strings.Contains(out, "needs --host-key FILE") {
		t.Errorf("serve on PostgreSQL without --host-key:\n%s", out)
	}
	if out := run(2, "backup", filepath.Join(t.TempDir(), "copy.db")); !strings.Contains(out, "pg_dump") {
		t.Errorf("backup on PostgreSQL:\n%s", out)
	}
	if strings.Contains(all.String(), pgSecret) {
		t.Errorf("the password shows in the output:\n%s", all.String())
	}
	// The audit log has every write, and no password.
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	log, err := st.AuditLog(context.Background(), store.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	actions := map[string]bool{}
	for _, e := range log {
		actions[e.Action] = true
		if strings.Contains(fmt.Sprintf("%+v", e), pgSecret) {
			t.Errorf("audit entry shows the password: %+v", e)
		}
	}
	if len(log) < 8 || !actions["users.manage"] || !actions["import"] || !actions["sample"] {
		t.Errorf("audit log on PostgreSQL: %d entries, actions %v", len(log), actions)
	}
	// check decodes every trace body on PostgreSQL too.
	if _, err := st.Reader().ExecContext(context.Background(), `UPDATE traces SET body = substr(body, 1, 12) WHERE id = (SELECT min(id) FROM traces)`); err != nil {
		t.Fatal(err)
	}
	if out := run(1, "check"); !strings.Contains(out, "cannot be decoded") || strings.Contains(out, "goldtrace backup") {
		t.Errorf("check of a damaged body on PostgreSQL:\n%s", out)
	}
}

// Sample draws the same items from the same traces on both engines.
func TestPostgresSampleMatchesSQLite(t *testing.T) {
	dsn := pgtest.DSN(t)
	dir := t.TempDir()
	traces := filepath.Join(dir, "traces.jsonl")
	if _, errOut, code, _ := runCLI(filepath.Join(dir, "unused.db"), "", "demo", "--write-traces", "80", traces, "--seed", "9"); code != 0 {
		t.Fatal(errOut)
	}
	var outs []string
	for _, db := range []string{filepath.Join(dir, "gt.db"), dsn} {
		for _, args := range [][]string{
			{"users", "add", "carol", "--role", "lead"},
			{"users", "add", "alice", "--role", "reviewer", "--as", "carol"},
			{"users", "add", "bob", "--role", "reviewer", "--as", "carol"},
			{"import", traces},
			{"sample", "--n", "25", "--by", "meta.cohort", "--seed", "11", "--reviewers", "alice,bob", "--json"},
		} {
			out, errOut, code, _ := runCLI(db, "", args...)
			if code != 0 {
				t.Fatalf("%s: goldtrace %s: exit %d\n%s", db, strings.Join(args, " "), code, errOut)
			}
			if args[0] == "sample" {
				outs = append(outs, out)
			}
		}
	}
	if outs[0] != outs[1] || !strings.Contains(outs[0], `"sampled": 25`) {
		t.Errorf("sample on SQLite and on PostgreSQL differ:\n%s\n----\n%s", outs[0], outs[1])
	}
}

// A DSN naming no server fails in one line naming host and database, exit
// 2, without the password (no PostgreSQL needed).
func TestPostgresUnreachable(t *testing.T) {
	t.Setenv("GOLDTRACE_DB", "")
	db := "postgres://gt:" + pgSecret + "@127.0.0.1:1/proj?sslmode=disable&connect_timeout=5"
	for _, args := range [][]string{{"init"}, {"users", "list"}, {"whoami"}} {
		out, errOut, code, _ := runCLI(db, "", args...)
		msg := out + errOut
		if code != 2 || strings.Contains(msg, pgSecret) || !strings.Contains(msg, "127.0.0.1 port 1 (connection refused)") ||
			!strings.Contains(msg, "/proj") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("goldtrace %s on an unreachable server: exit %d\n%s", strings.Join(args, " "), code, msg)
		}
	}
	if _, err := os.Stat("proj"); err == nil {
		t.Error("a file named after the database was created")
	}
	// --db's default, shown by --help, is GOLDTRACE_DB without its password.
	t.Setenv("GOLDTRACE_DB", db)
	var out bytes.Buffer
	root := newRootCmd(NewCLI(strings.NewReader(""), &out, &out))
	root.SetArgs([]string{"users", "list", "--help"})
	if err := root.Execute(); err != nil || strings.Contains(out.String(), pgSecret) || !strings.Contains(out.String(), "postgres://gt@127.0.0.1:1/proj") {
		t.Errorf("users list --help with a password in GOLDTRACE_DB: %v\n%s", err, out.String())
	}
}

// TestCopyAndExportOnPostgres drives goldtrace copy from a SQLite demo
// project to PostgreSQL (the password in the DSN) and the dataset
// commands on the copy: the same JSONL as SQLite's export, NAME@vN
// re-materialised byte for byte, diff, verify and score as on SQLite; no
// output shows the password.
func TestCopyAndExportOnPostgres(t *testing.T) {
	u, err := url.Parse(pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), pgSecret)
	pg := u.String()
	dir := t.TempDir()
	lite := filepath.Join(dir, "goldtrace.db")
	var all strings.Builder
	run := func(db string, want int, args ...string) string {
		t.Helper()
		out, errOut, code, _ := runCLI(db, "", args...)
		all.WriteString(out + errOut)
		if code != want {
			t.Fatalf("goldtrace %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, out, errOut)
		}
		return out + errOut
	}
	run(lite, 0, "demo", "--dir", dir, "--no-tui", "--traces", "80", "--batch-items", "20", "--prelabeled", "20")
	liteOut, pgOut := filepath.Join(dir, "lite"), filepath.Join(dir, "pg")
	run(lite, 0, "export", "support", "--as", "carol", "--out", liteOut, "--allow-partial")
	out := run(lite, 0, "copy", "--from", lite, "--to", pg)
	if !strings.Contains(out, "checked support@v1:") || !strings.Contains(out, "byte-identical") || !strings.Contains(out, "checked the gold:") {
		t.Errorf("copy:\n%s", out)
	}
	if out := run(lite, 2, "copy", "--from", lite, "--to", pg); !strings.Contains(out, "is not empty") || strings.Count(strings.TrimSpace(out), "\n") != 0 {
		t.Errorf("copy into a project:\n%s", out)
	}
	if out := run(lite, 2, "copy", "--from", lite); !strings.Contains(out, "needs --from and --to") {
		t.Errorf("copy without --to:\n%s", out)
	}
	// v1 from the copy is the original's, byte for byte.
	run(pg, 0, "export", "support@v1", "--out", pgOut)
	for _, name := range []string{"support-v1.jsonl", "support-v1.manifest.json"} {
		want, _ := os.ReadFile(filepath.Join(liteOut, name))
		got, err := os.ReadFile(filepath.Join(pgOut, name))
		if err != nil || len(want) == 0 || !bytes.Equal(got, want) {
			t.Errorf("%s re-materialised from PostgreSQL differs: %v", name, err)
		}
	}
	// A new version: the same records on both engines.
	run(lite, 0, "export", "support", "--as", "carol", "--out", liteOut, "--allow-partial", "--force")
	run(pg, 0, "export", "support", "--as", "carol", "--out", pgOut, "--allow-partial", "--force")
	want, _ := os.ReadFile(filepath.Join(liteOut, "support-v2.jsonl"))
	got, _ := os.ReadFile(filepath.Join(pgOut, "support-v2.jsonl"))
	if len(want) == 0 || !bytes.Equal(got, want) {
		t.Errorf("support@v2 exported on PostgreSQL differs from SQLite's")
	}
	tools := filepath.Join(dir, "tools.json")
	if err := os.WriteFile(tools, []byte(`[{"name":"get_order_status","description":"Where an order is.","parameters":{"type":"object","properties":{"order_id":{"type":"string"}}}}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		args []string
		want string
	}{
		{[]string{"datasets"}, "support"},
		{[]string{"diff", "support@v1", "support@v2"}, "0 added, 0 removed, 0 changed"},
		{[]string{"verify", "support@v2"}, "matches its stored manifest"},
		{[]string{"verify", filepath.Join(pgOut, "support-v2.jsonl")}, "OK"},
		{[]string{"score", "--gold", "support@v2"}, "exact_call"},
		{[]string{"datasets", "get", "support@v1"}, `"expected_calls"`},
		{[]string{"drift", "--gold", "support@v2", "--tools", tools}, "support@v2"},
	} {
		code := 0
		if step.args[0] == "drift" {
			code = 1 // the catalogue lost tools: stale gold
		}
		lo, po := run(lite, code, step.args...), run(pg, code, step.args...)
		if !strings.Contains(po, step.want) {
			t.Errorf("goldtrace %s on PostgreSQL: want %q in\n%s", strings.Join(step.args, " "), step.want, po)
		}
		if step.args[0] != "datasets" && lo != po {
			t.Errorf("goldtrace %s: PostgreSQL says\n%s\nSQLite says\n%s", strings.Join(step.args, " "), po, lo)
		}
	}
	// Back to SQLite.
	if out := run(lite, 0, "copy", "--from", pg, "--to", filepath.Join(dir, "back.db")); !strings.Contains(out, "checked support@v2:") {
		t.Errorf("copy back:\n%s", out)
	}
	if strings.Contains(all.String(), pgSecret) {
		t.Errorf("the password shows in the output:\n%s", all.String())
	}
}
