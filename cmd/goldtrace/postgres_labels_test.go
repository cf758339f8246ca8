package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/internal/pgtest"
)

// The labeling write path (labels import, items, resolve, send-back,
// assign --release, labels export, audit) gives the same answers on
// PostgreSQL as on SQLite, command by command, and refuses the same
// things the same way.
func TestPostgresLabelWritePathMatchesSQLite(t *testing.T) {
	dsn := pgtest.DSN(t)
	dir := t.TempDir()
	traces := filepath.Join(dir, "traces.jsonl")
	if _, errOut, code, _ := runCLI(filepath.Join(dir, "unused.db"), "", "demo", "--write-traces", "40", traces, "--seed", "4"); code != 0 {
		t.Fatal(errOut)
	}
	// Times and ages differ between two runs; nothing else may.
	clock := regexp.MustCompile(`\d{4}-\d\d-\d\dT[0-9:.]+Z|\b\d+(\.\d+)?(s|ms|µs)\b`)
	var runs [2][]string
	for e, db := range []string{filepath.Join(dir, "gt.db"), dsn} {
		run := func(want int, args ...string) string {
			t.Helper()
			out, errOut, code, _ := runCLI(db, "", args...)
			if code != want {
				t.Fatalf("%s: goldtrace %s: exit %d, want %d\n%s%s", db, strings.Join(args, " "), code, want, out, errOut)
			}
			if want != 0 && args[0] != "labels" && strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
				t.Errorf("%s: goldtrace %s: the error is not one line:\n%s", db, strings.Join(args, " "), errOut)
			}
			runs[e] = append(runs[e], "$ "+strings.Join(args, " ")+"\n"+strings.ReplaceAll(clock.ReplaceAllString(out+errOut, "T"), db, "DB"))
			return out
		}
		run(0, "users", "add", "carol", "--role", "lead")
		run(0, "users", "add", "alice", "--role", "reviewer", "--as", "carol")
		run(0, "users", "add", "bob", "--role", "reviewer", "--as", "carol")
		run(0, "users", "add", "dave", "--role", "reviewer", "--as", "carol")
		run(0, "import", traces)
		run(0, "sample", "--n", "8", "--by", "tool", "--seed", "5", "--reviewers", "alice,bob")
		var items []struct {
			Item string `json:"item"`
		}
		if err := json.Unmarshal([]byte(run(0, "items", "--as", "bob", "--json")), &items); err != nil || len(items) != 8 {
			t.Fatalf("%s: items: %d %v", db, len(items), err)
		}
		for _, who := range []string{"alice", "bob"} {
			var b strings.Builder
			for i, it := range items {
				line := map[string]any{"item": it.Item, "reviewer": who, "decision": "no_call", "calls": []any{},
					"rationale": who + " answers in words", "submitted_at": "2026-05-01T12:00:00Z", "seconds": 10 + i}
				if who == "bob" && i%3 == 0 {
					line["decision"], line["calls"] = "call", []any{map[string]any{"tool": "escalate_to_human", "args": map[string]any{"priority": "high", "summary": "stuck"}}}
				}
				if who == "alice" && i == 7 {
					continue // alice's last item stays pending: released below
				}
				j, _ := json.Marshal(line)
				b.Write(append(j, '\n'))
			}
			file := filepath.Join(dir, who+".jsonl") // the same name on both: outputs quote it
			if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			run(0, "labels", "import", file, "--as", who)
			run(2, "labels", "import", file, "--as", who) // every line already submitted: nothing imported
		}
		run(0, "status", "--as", "carol")
		var disputed []struct {
			Item string `json:"item"`
		}
		if err := json.Unmarshal([]byte(run(0, "items", "--as", "carol", "--state", "disputed", "--json")), &disputed); err != nil || len(disputed) < 2 {
			t.Fatalf("%s: disputed items: %d %v", db, len(disputed), err)
		}
		first, second := disputed[0].Item, disputed[1].Item
		run(0, "resolve", first, "--as", "carol", "--pick", "bob", "--reason", "bob read the last message")
		run(2, "resolve", first, "--as", "carol", "--pick", "alice", "--reason", "again")
		run(0, "resolve", first, "--as", "carol", "--pick", "alice", "--reason", "changed my mind", "--force")
		run(2, "resolve", first, "--as", "alice", "--pick", "alice", "--reason", "mine")
		run(0, "resolve", second, "--as", "carol", "--send-back", "--reason", "reread the guide")
		run(0, "items", "--as", "alice")
		run(0, "assign", "--release", "--as", "carol", "--from", "alice", "--to", "dave")
		run(0, "items", "--as", "dave")
		run(0, "labels", "export", "--as", "carol")
		run(0, "labels", "export", "--as", "bob")
		run(0, "status", "--as", "carol")
		audit := run(0, "audit", "--as", "carol", "--json")
		if !strings.Contains(audit, `"resolve `+first) || !strings.Contains(audit, "release from alice to dave") {
			t.Errorf("%s: the audit log misses the resolve or the release:\n%s", db, audit)
		}
	}
	if len(runs[0]) != len(runs[1]) {
		t.Fatalf("%d commands on SQLite, %d on PostgreSQL", len(runs[0]), len(runs[1]))
	}
	for i := range runs[0] {
		if runs[0][i] != runs[1][i] {
			t.Errorf("SQLite and PostgreSQL differ:\n%s\n---- PostgreSQL:\n%s", runs[0][i], runs[1][i])
		}
	}
}
