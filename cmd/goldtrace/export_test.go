package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// expRun runs goldtrace with args against db, as main would, and returns
// stdout, stderr and the exit code.
func expRun(t *testing.T, db string, args ...string) (string, string, int) {
	t.Helper()
	out, errOut, code, _ := runCLI(db, "", args...)
	return out, errOut, code
}

// expGold is one gold row of a fixture.
type expGold struct {
	traceID  string
	turn     int
	status   string
	decision string
	calls    string // JSON array of gold.ExpectedCall
}

func expTrace(id, cohort string) trace.Trace {
	return trace.Trace{
		ID:        id,
		Timestamp: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC),
		Metadata:  map[string]string{"cohort": cohort},
		Tools: []trace.Tool{
			{Name: "get_order_status", Description: "Shipping status of one order.",
				Parameters: json.RawMessage(`{"properties":{"order_id":{"type":"string"}},"required":["order_id"],"type":"object"}`)},
			{Name: "refund", Parameters: json.RawMessage(`{"type":"object"}`)},
		},
		Messages: []trace.Message{
			{Role: "system", Content: "You are a support agent."},
			{Role: "user", Content: "where's my package? (" + id + ")"},
			{Role: "assistant", ToolCalls: []trace.Call{trace.NewCall("c1", "get_order_status", `{"order_id":"ORD-1"}`)}},
			{Role: "tool", ToolCallID: "c1", Content: "shipped"},
			{Role: "assistant", Content: "It shipped."},
		},
	}
}

const expCall = `[{"tool":"get_order_status","args":{"order_id":"ORD-1"},"arg_rules":{"order_id":{"match":"exact"}}}]`

// expSeed fills db with users, the traces of golds and their gold rows, in
// the order given.
func expSeed(t *testing.T, db string, golds []expGold) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, u := range []struct{ name, role string }{{"alice", store.RoleReviewer}, {"bob", store.RoleReviewer}, {"carol", store.RoleLead}} {
		if err := st.AddUser(ctx, u.name, u.role); err != nil {
			t.Fatal(err)
		}
	}
	err = st.WithTx(ctx, func(tx *store.Tx) error {
		for _, g := range golds {
			cohort := "billing"
			if strings.HasSuffix(g.traceID, "r") {
				cohort = "refunds"
			}
			if _, err := st.InsertTrace(ctx, tx, expTrace(g.traceID, cohort), "test"); err != nil {
				return err
			}
			adj := ""
			if g.status == gold.StatusAdjudicated {
				adj = "carol"
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO gold(item_id, status, decision, calls, acceptable, rationale, reviewers, adjudicator, guide_version, updated_at)
				VALUES (?, ?, ?, ?, '[]', 'per the guide', '["alice","bob"]', ?, 'g_000000000001', '2026-05-02T00:00:00Z')`,
				trace.ItemID(g.traceID, g.turn), g.status, g.decision, g.calls, adj); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// expExec runs SQL against db directly (a fixture step, or an attack).
func expExec(t *testing.T, db, query string, args ...any) error {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	return st.WithTx(ctx, func(tx *store.Tx) error { _, err := tx.ExecContext(ctx, query, args...); return err })
}

func expGolds() []expGold {
	return []expGold{
		{"tr_1", 2, gold.StatusAgreed, "call", expCall},
		{"tr_1", 4, gold.StatusAgreed, "no_call", "[]"},
		{"tr_2r", 2, gold.StatusAdjudicated, "call", `[{"tool":"refund","args":{}}]`},
		{"tr_3", 4, gold.StatusAdjudicated, "no_call", "[]"},
	}
}

func expRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func expManifest(t *testing.T, path string) dataset.Manifest {
	t.Helper()
	m, err := dataset.ParseManifest(expRead(t, path))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestExportVersionsChangesAndNothingChanged(t *testing.T) {
	dir := t.TempDir()
	db, out := filepath.Join(dir, "gt.db"), filepath.Join(dir, "out")
	expSeed(t, db, expGolds())

	stdout, stderr, code := expRun(t, db, "export", "support", "--out", out, "-m", "first cut", "--as", "carol")
	if code != 0 {
		t.Fatalf("export v1: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "exported support v1: 4 items (4 added, 0 removed, 0 changed)") {
		t.Errorf("stdout: %s", stdout)
	}
	m1 := expManifest(t, filepath.Join(out, "support-v1.manifest.json"))
	if m1.ParentVersion != nil || m1.Count != 4 || m1.CreatedBy != "carol" || m1.Message != "first cut" ||
		m1.ToolCounts["(none)"] != 2 || m1.ToolCounts["refund"] != 1 || m1.Agreement.Agreed != 2 || m1.Agreement.Adjudicated != 2 {
		t.Errorf("manifest v1: %+v", m1)
	}
	if stdout, _, code := expRun(t, db, "verify", filepath.Join(out, "support-v1.jsonl")); code != 0 || !strings.HasPrefix(stdout, "OK ") {
		t.Errorf("verify v1: exit %d: %s", code, stdout)
	}

	// Nothing changed: nothing written.
	stdout, _, code = expRun(t, db, "export", "support", "--out", out, "--as", "carol")
	if code != 0 || !strings.Contains(stdout, "nothing changed since v1") {
		t.Errorf("unchanged export: exit %d: %s", code, stdout)
	}
	if _, err := os.Stat(filepath.Join(out, "support-v2.jsonl")); !os.IsNotExist(err) {
		t.Errorf("unchanged export wrote v2: %v", err)
	}

	// An item of v1 is re-adjudicated; v1 stays as it was, v2 shows the change.
	v1Bytes := expRead(t, filepath.Join(out, "support-v1.jsonl"))
	if err := expExec(t, db, `UPDATE gold SET status = 'adjudicated', adjudicator = 'carol', calls = ? WHERE item_id = ?`,
		`[{"tool":"get_order_status","args":{"order_id":"ORD-2"},"arg_rules":{"order_id":{"match":"fuzzy"}}}]`, trace.ItemID("tr_1", 2)); err != nil {
		t.Fatal(err)
	}
	if err := expExec(t, db, `DELETE FROM gold WHERE item_id = ?`, trace.ItemID("tr_3", 4)); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = expRun(t, db, "export", "support", "--out", out, "--as", "carol", "-m", "re-adjudicated")
	if code != 0 || !strings.Contains(stdout, "exported support v2: 3 items (0 added, 1 removed, 1 changed)") {
		t.Fatalf("export v2: exit %d: %s%s", code, stdout, stderr)
	}
	m2 := expManifest(t, filepath.Join(out, "support-v2.manifest.json"))
	if m2.ParentVersion == nil || *m2.ParentVersion != 1 || len(m2.Changes.Changed) != 1 || m2.Changes.Changed[0] != trace.ItemID("tr_1", 2) ||
		len(m2.Changes.Removed) != 1 || m2.Changes.Removed[0] != trace.ItemID("tr_3", 4) {
		t.Errorf("manifest v2 changes: parent %v %+v", m2.ParentVersion, m2.Changes)
	}
	stdout, _, code = expRun(t, db, "export", "support@v1", "--out", filepath.Join(dir, "again"))
	if code != 0 || !bytes.Equal(expRead(t, filepath.Join(dir, "again", "support-v1.jsonl")), v1Bytes) {
		t.Errorf("v1 changed after re-adjudication (exit %d: %s)", code, stdout)
	}

	stdout, _, code = expRun(t, db, "diff", "support@v1", "support@v2")
	for _, want := range []string{"support@v1 → support@v2: 0 added, 1 removed, 1 changed",
		"- " + trace.ItemID("tr_3", 4), "~ " + trace.ItemID("tr_1", 2) + " (args, rules, provenance)",
		`expected_calls[0].args.order_id: "ORD-1" → "ORD-2"`, `expected_calls[0].arg_rules.order_id.match: "exact" → "fuzzy"`,
		`provenance.adjudicator: null → "carol"`} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("diff lacks %q (exit %d):\n%s", want, code, stdout)
		}
	}

	// --force writes a version even without changes.
	if stdout, _, code = expRun(t, db, "export", "support", "--out", out, "--as", "carol", "--force", "--json"); code != 0 {
		t.Fatalf("forced export: exit %d", code)
	}
	var res app.ExportResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.Version != 3 || res.Changed != 0 || res.Count != 3 {
		t.Errorf("forced export: %+v %v", res, err)
	}

	stdout, _, code = expRun(t, db, "datasets", "--json")
	var versions []store.DatasetVersion
	if err := json.Unmarshal([]byte(stdout), &versions); err != nil || code != 0 || len(versions) != 3 || versions[1].Message != "re-adjudicated" {
		t.Errorf("datasets: %s %v", stdout, err)
	}
	stdout, _, _ = expRun(t, db, "datasets")
	if !strings.Contains(stdout, "support  v1       4      ") || !strings.Contains(stdout, "first cut") {
		t.Errorf("datasets text:\n%s", stdout)
	}
}

func TestExportIsByteIdenticalAcrossDatabases(t *testing.T) {
	golds := expGolds()
	reversed := make([]expGold, len(golds))
	for i, g := range golds {
		reversed[len(golds)-1-i] = g
	}
	var contents [][]byte
	for i, gs := range [][]expGold{golds, reversed} {
		dir := t.TempDir()
		db := filepath.Join(dir, "gt.db")
		expSeed(t, db, gs)
		if _, stderr, code := expRun(t, db, "export", "support", "--out", dir, "--as", "carol", "--format", "openai-evals,langsmith,promptfoo"); code != 0 {
			t.Fatalf("db %d: exit %d: %s", i, code, stderr)
		}
		jsonl := expRead(t, filepath.Join(dir, "support-v1.jsonl"))
		contents = append(contents, jsonl)
		m := expManifest(t, filepath.Join(dir, "support-v1.manifest.json"))
		if m.SHA256 != dataset.RecordHash(jsonl) {
			t.Errorf("db %d: manifest sha256 %s is not the file's", i, m.SHA256)
		}
		// Re-materialising gives the same bytes for every file.
		again := filepath.Join(dir, "again")
		if _, stderr, code := expRun(t, db, "export", "support@v1", "--out", again, "--format", "openai-evals,langsmith,promptfoo"); code != 0 {
			t.Fatalf("re-materialise: exit %d: %s", code, stderr)
		}
		for _, name := range []string{"support-v1.jsonl", "support-v1.manifest.json", "support-v1.openai-evals.jsonl",
			"support-v1.langsmith.jsonl", "support-v1.promptfoo.jsonl"} {
			if !bytes.Equal(expRead(t, filepath.Join(dir, name)), expRead(t, filepath.Join(again, name))) {
				t.Errorf("db %d: %s differs when re-materialised", i, name)
			}
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.Contains(e.Name(), ".tmp-") {
				t.Errorf("temporary file left: %s", e.Name())
			}
		}
	}
	if !bytes.Equal(contents[0], contents[1]) {
		t.Errorf("same gold, different bytes:\n%s\n%s", contents[0], contents[1])
	}
}

func TestExportFiltersSelectItems(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "gt.db")
	expSeed(t, db, expGolds())
	tests := []struct {
		args []string
		want int
	}{
		{[]string{"--where", "meta.cohort=refunds"}, 1},
		{[]string{"--where", "status=agreed"}, 2},
		{[]string{"--where", "tool=(none)", "--where", "tool=refund"}, 3},
		{[]string{"--where", "tool=(none)", "--where", "meta.cohort=billing"}, 2},
	}
	for i, tc := range tests {
		name := "sel" + string(rune('a'+i))
		stdout, stderr, code := expRun(t, db, append([]string{"export", name, "--out", dir, "--as", "carol", "--json"}, tc.args...)...)
		var res app.ExportResult
		if code != 0 || json.Unmarshal([]byte(stdout), &res) != nil || res.Count != tc.want {
			t.Errorf("%v: exit %d, %s%s, want %d items", tc.args, code, stdout, stderr, tc.want)
			continue
		}
		m := expManifest(t, filepath.Join(dir, name+"-v1.manifest.json"))
		if len(m.Selection.Where) != len(tc.args)/2 {
			t.Errorf("%v: selection %+v", tc.args, m.Selection)
		}
	}
}

func TestExportRejectsBadInputWritingNothing(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "gt.db")
	expSeed(t, db, expGolds())
	notDir := filepath.Join(dir, "file")
	if err := os.WriteFile(notDir, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.db")
	if _, stderr, code := expRun(t, empty, "users", "add", "carol", "--role", "lead"); code != 0 {
		t.Fatal(stderr)
	}
	out := filepath.Join(dir, "out")
	tests := []struct {
		name string
		db   string
		args []string
		want string
	}{
		{"unknown version", db, []string{"export", "support@v9", "--out", out}, "support@v9: no such dataset version"},
		{"bad version", db, []string{"export", "support@latest", "--out", out}, "version must look like v1"},
		{"path separator", db, []string{"export", "a/b", "--out", out}, "path separator"},
		{"space", db, []string{"export", "a b", "--out", out}, "white space"},
		{"empty name", db, []string{"export", "", "--out", out}, "dataset name is empty"},
		{"out is a file", db, []string{"export", "support", "--out", filepath.Join(notDir, "sub"), "--as", "carol"}, "--out"},
		{"no gold", empty, []string{"export", "support", "--out", out, "--as", "carol"}, "no gold items to export"},
		{"no gold matching", db, []string{"export", "support", "--out", out, "--as", "carol", "--batch", "nope"}, "no gold items to export matching batch nope"},
		{"reviewer as exporter", db, []string{"export", "support", "--out", out, "--as", "alice"}, "alice is a reviewer; only a lead may export"},
		{"no identity", db, []string{"export", "support", "--out", out}, "only a lead may export a dataset version: --as LEAD is required"},
		{"unknown user", db, []string{"export", "support", "--out", out, "--as", "mallory"}, `user "mallory"`},
		{"bad where", db, []string{"export", "support", "--out", out, "--as", "carol", "--where", "cohort=x"}, "meta.NAME, status or tool"},
		{"bad format", db, []string{"export", "support", "--out", out, "--as", "carol", "--format", "csv"}, `--format "csv"`},
		{"flags on a stored version", db, []string{"export", "support@v1", "--out", out, "-m", "x"}, "does not apply"},
		{"unknown dataset in diff", db, []string{"diff", "nope@v1", "nope@v2"}, "nope@v1: no such dataset version"},
		{"unknown dataset listed", db, []string{"datasets", "nope"}, "no such dataset"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := expRun(t, tc.db, tc.args...)
			if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want exit 2 with one line containing %q", code, stderr, tc.want)
			}
			if entries, _ := os.ReadDir(out); len(entries) > 0 {
				t.Errorf("wrote %s", entries[0].Name())
			}
		})
	}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(dir, "ro")
		if err := os.Mkdir(ro, 0o500); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := expRun(t, db, "export", "support", "--out", ro, "--as", "carol")
		if code != 2 || !strings.Contains(stderr, "not writable") {
			t.Errorf("read-only --out: exit %d %s", code, stderr)
		}
	}
}

func TestExportLeavesNothingWhenTheStoreRefuses(t *testing.T) {
	dir := t.TempDir()
	db, out := filepath.Join(dir, "gt.db"), filepath.Join(dir, "out")
	expSeed(t, db, expGolds())
	if err := expExec(t, db, `CREATE TRIGGER refuse BEFORE INSERT ON dataset_items BEGIN SELECT RAISE(ABORT, 'disk quota'); END`); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := expRun(t, db, "export", "support", "--out", out, "--as", "carol")
	if code != 2 || !strings.Contains(stderr, "disk quota") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if entries, _ := os.ReadDir(out); len(entries) > 0 {
		t.Errorf("left %s behind", entries[0].Name())
	}
	if stdout, _, _ := expRun(t, db, "datasets"); !strings.Contains(stdout, "no datasets yet") {
		t.Errorf("half a version stored: %s", stdout)
	}
	// Refused at the version row, after the items went in: all rolled back.
	if err := expExec(t, db, `DROP TRIGGER refuse`); err != nil {
		t.Fatal(err)
	}
	if err := expExec(t, db, `CREATE TRIGGER refuse BEFORE INSERT ON datasets BEGIN SELECT RAISE(ABORT, 'disk full'); END`); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := expRun(t, db, "export", "support", "--out", out, "--as", "carol"); code != 2 || !strings.Contains(stderr, "disk full") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if entries, _ := os.ReadDir(out); len(entries) > 0 {
		t.Errorf("left %s behind", entries[0].Name())
	}
	// (A statement that fails if any item row was kept.)
	if err := expExec(t, db, `INSERT INTO users(name, role, created_at) SELECT 'x', 'nope', '' FROM dataset_items LIMIT 1`); err != nil {
		t.Errorf("rolled back export kept its items: %v", err)
	}
	// A file already in the way of a new version: refused before the store.
	if err := expExec(t, db, `DROP TRIGGER refuse`); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "support-v1.jsonl"), []byte("other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := expRun(t, db, "export", "support", "--out", out, "--as", "carol"); code != 2 || !strings.Contains(stderr, "already exists") {
		t.Errorf("clobbering export: exit %d %s", code, stderr)
	}
	if stdout, _, _ := expRun(t, db, "datasets"); !strings.Contains(stdout, "no datasets yet") {
		t.Errorf("version stored though its files were refused: %s", stdout)
	}
}
