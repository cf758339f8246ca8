package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/catalogue"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// driftVersion exports support@v1 from expGolds into a new database.
func driftVersion(t *testing.T) (db, dir string) {
	t.Helper()
	dir = t.TempDir()
	db = filepath.Join(dir, "gt.db")
	expSeed(t, db, expGolds())
	if _, errs, code := expRun(t, db, "export", "support", "--as", "carol", "--out", dir, "-m", "v1"); code != 0 {
		t.Fatalf("export: %s", errs)
	}
	return db, dir
}

func TestDriftCommand(t *testing.T) {
	db, dir := driftVersion(t)
	m := expManifest(t, filepath.Join(dir, "support-v1.manifest.json"))
	if len(m.Catalogue["get_order_status"]) != 1 || len(m.Catalogue["refund"]) != 1 {
		t.Fatalf("manifest catalogue %v", m.Catalogue)
	}
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	same := write("same.json", `[{"type":"function","function":{"name":"get_order_status","description":"Shipping status of one order.","parameters":{"type":"object","properties":{"order_id":{"type":"string"}},"required":["order_id"]}}},
		{"type":"function","function":{"name":"refund","parameters":{"type":"object"}}}]`)
	out, errs, code := expRun(t, db, "drift", "--gold", "support@v1", "--tools", same)
	if code != 0 || !strings.Contains(out, "0 of 4 items stale") || !strings.Contains(out, "2 unchanged") {
		t.Fatalf("same catalogue: exit %d\n%s%s", code, out, errs)
	}
	// MCP shape: refund gained a required field, the status tool is renamed.
	mcp := write("mcp.json", `{"tools":[{"name":"order_status","description":"Shipping status of one order.","inputSchema":{"type":"object","properties":{"order_id":{"type":"string"}},"required":["order_id"]}},
		{"name":"refund","inputSchema":{"type":"object","properties":{"amount":{"type":"number"}},"required":["amount"]}}]}`)
	out, errs, code = expRun(t, db, "drift", "--gold", "support@v1", "--tools", mcp, "--json")
	if code != 1 || !strings.Contains(errs, "2 of 4 items of support@v1 are stale") {
		t.Fatalf("stale: exit %d: %s", code, errs)
	}
	var r catalogue.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{trace.ItemID("tr_1", 2): "tool_renamed", trace.ItemID("tr_2r", 2): "newly_required"}
	if r.Stale != 2 || len(r.Details) != 2 {
		t.Fatalf("report %+v", r)
	}
	for _, it := range r.Details {
		if it.Findings[0].Kind != want[it.ID] {
			t.Errorf("%s: %+v", it.ID, it.Findings)
		}
	}
	if r.Details[0].Findings[0].Suggest != "order_status" && r.Details[1].Findings[0].Suggest != "order_status" {
		t.Errorf("no rename suggestion: %+v", r.Details)
	}
	// Markdown, the catalogue from stdin.
	mcpBytes, _ := os.ReadFile(mcp)
	md, _, code, _ := runCLI(db, string(mcpBytes), "drift", "--gold", "support@v1", "--tools", "-", "--format", "markdown")
	if code != 1 || !strings.Contains(md, "## Catalogue drift: support@v1") || !strings.Contains(md, "| newly_required | amount |") {
		t.Errorf("markdown: exit %d\n%s", code, md)
	}
	for _, bad := range [][]string{
		{"drift", "--gold", "support@v1"},
		{"drift", "--gold", "support@v1", "--tools", filepath.Join(dir, "absent.json")},
		{"drift", "--gold", "support@v1", "--tools", write("bad.json", `[{"description":"no name"}]`)},
		{"drift", "--gold", "support@v9", "--tools", same},
		{"drift", "--gold", "-", "--tools", "-"},
		{"drift", "--gold", "support@v1", "--tools", same, "--format", "xml"},
	} {
		if _, errs, code := expRun(t, db, bad...); code != 2 || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d, want 2 and one line: %q", bad, code, errs)
		}
	}
}

func TestDriftOverSSHReadsOnlyStdinAndVersions(t *testing.T) {
	db, _ := driftVersion(t)
	carol := app.Actor{Name: "carol", Role: app.RoleLead, Source: app.SourceSSH, KeyFingerprint: addTestKey(t, db, "carol")}
	catalogue := `[{"name":"get_order_status","description":"Shipping status of one order.","parameters":{"type":"object","properties":{"order_id":{"type":"string"}},"required":["order_id"]}},{"name":"refund","parameters":{"type":"object"}}]`
	for _, args := range [][]string{
		{"drift", "--gold", "support@v1", "--tools", "/etc/passwd"},
		{"drift", "--gold", "support@v1", "--tools=/srv/tools.json"},
		{"drift", "--gold", "/srv/gold.jsonl", "--tools", "-"},
		{"drift", "--gold", "support@v1", "--tools", "-", "--as", "carol"},
		{"sample", "--stale", "support@v1", "--tools", "/srv/tools.json", "--reviewers", "alice,bob"},
		{"sample", "--by", "disagreement", "--runs", "/srv/a.jsonl,/srv/b.jsonl", "--reviewers", "alice,bob"},
		// The judge would call a URL with the server's key, or read a
		// template file on the server: none of its flags exist over SSH.
		{"sample", "--by", "disagreement", "--judge", "quality", "--judge-model", "m-2024-01-01", "--dry-run"},
		{"sample", "--by=disagreement", "--judge=quality", "--dry-run"},
		{"sample", "--judge-url", "http://169.254.169.254/v1", "--dry-run"},
		{"sample", "--judge-url=http://127.0.0.1:1/v1", "--dry-run"},
		{"sample", "--judge-template", "/etc/passwd", "--dry-run"},
		{"sample", "--judge-offline", "--dry-run"},
		{"sample", "--judge-samples", "1", "--dry-run"},
	} {
		if _, err := sshRunAs(t, db, carol, catalogue, args...); err == nil {
			t.Errorf("%v allowed over SSH", args)
		} else if strings.Contains(strings.Join(args, " "), "judge") && !strings.Contains(err.Error(), "judge") {
			t.Errorf("%v over SSH: %v", args, err)
		}
	}
	out, err := sshRunAs(t, db, carol, catalogue, "drift", "--gold", "support@v1", "--tools", "-", "--format", "markdown")
	if err != nil || !strings.Contains(out, "**0 of 4 items stale**") {
		t.Errorf("drift over SSH: %v\n%s", err, out)
	}
}

// sshRunAs runs a command line as an SSH client of actor would, through
// the SSH command surface.
func sshRunAs(t *testing.T, db string, actor app.Actor, stdin string, args ...string) (string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	a := &CLI{In: strings.NewReader(stdin), Out: &out, Err: &errb, remote: true}
	defer a.Close()
	err := runSSH(app.WithActor(t.Context(), actor), a, actor, siteOf(db), args)
	return out.String(), err
}

func TestSampleStalePutsStaleGoldBack(t *testing.T) {
	db, dir := driftVersion(t)
	tools := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(tools, []byte(`{"tools":[{"name":"get_order_status","description":"Shipping status of one order.","inputSchema":{"type":"object","properties":{"order_id":{"type":"string","enum":["ORD-2"]}},"required":["order_id"]}},
		{"name":"refund","inputSchema":{"type":"object"}}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	item := trace.ItemID("tr_1", 2)
	for _, bad := range [][]string{
		{"sample", "--stale", "support@v1", "--tools", tools, "--reviewers", "alice,bob", "--as", "alice"}, // a reviewer
		{"sample", "--stale", "support@v1", "--tools", tools, "--reviewers", "alice,bob"},                  // nobody
		{"sample", "--stale", "support@v1", "--tools", tools, "--reviewers", "alice,zed", "--as", "carol"},
		{"sample", "--stale", "support@v1", "--tools", tools, "--reviewers", "alice", "--as", "carol", "--n", "5"},
		{"sample", "--stale", "support.jsonl", "--tools", tools, "--reviewers", "alice,bob", "--as", "carol"},
		{"sample", "--stale", "support@v1", "--reviewers", "alice,bob", "--as", "carol"},
		{"sample", "--tools", tools, "--reviewers", "alice,bob"},
	} {
		if _, errs, code := expRun(t, db, bad...); code != 2 || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d: %q", bad, code, errs)
		}
	}
	out, errs, code := expRun(t, db, "sample", "--stale", "support@v1", "--tools", tools, "--reviewers", "alice,bob", "--as", "carol", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var plan struct {
		Stale    int    `json:"stale"`
		Batch    string `json:"batch"`
		Assigned []struct {
			ID        string   `json:"id"`
			Reviewers []string `json:"reviewers"`
		} `json:"assigned"`
	}
	if err := json.Unmarshal([]byte(out), &plan); err != nil || plan.Stale != 1 || plan.Batch != "support-v1-stale" || len(plan.Assigned) != 1 || plan.Assigned[0].ID != item {
		t.Fatalf("plan %v %s", err, out)
	}
	// The item is open again; each reviewer has the old answer as a draft
	// and a note saying why.
	status, _, _ := expRun(t, db, "status", "--as", "carol", "--batch", "support-v1-stale")
	if !strings.Contains(status, "1 item: 1 open") || !strings.Contains(status, "2 draft") {
		t.Errorf("status:\n%s", status)
	}
	st := openStore(t, db)
	body, _, err := st.Draft(t.Context(), item, "alice")
	if err != nil || !strings.Contains(string(body), `"tool":"get_order_status"`) || !strings.Contains(string(body), `ORD-1`) {
		t.Errorf("draft %s %v", body, err)
	}
	notes, err := st.Notes(t.Context(), item)
	if err != nil || len(notes) == 0 || !strings.Contains(notes[len(notes)-1].Body, "order_id must be one of ORD-2") {
		t.Errorf("notes %+v %v", notes, err)
	}
	st.Close()
	// The same again: the batch exists, nothing changes.
	if _, errs, code := expRun(t, db, "sample", "--stale", "support@v1", "--tools", tools, "--reviewers", "alice,bob", "--as", "carol"); code != 2 || !strings.Contains(errs, "already") {
		t.Errorf("again: exit %d %s", code, errs)
	}
	// Exporting now would be partial: the item is open.
	if _, errs, code := expRun(t, db, "export", "support", "--as", "carol", "--out", dir); code == 0 || !strings.Contains(errs, "open") {
		t.Errorf("export while re-reviewing: exit %d %s", code, errs)
	}
}

func openStore(t *testing.T, db string) *store.Store {
	t.Helper()
	st, err := store.Open(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestScoreWarnsOfAnotherCatalogue(t *testing.T) {
	db, dir := driftVersion(t)
	pred := filepath.Join(dir, "pred.jsonl")
	var b strings.Builder
	for _, g := range expGolds() {
		b.WriteString(`{"id":"` + trace.ItemID(g.traceID, g.turn) + `","tool_calls":[],"tools":[{"name":"get_order_status","description":"Status of one order."}]}` + "\n")
	}
	if err := os.WriteFile(pred, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errs, _ := expRun(t, db, "score", "--gold", "support@v1", "--pred", pred)
	if !strings.Contains(errs, "4 of 4 predictions were made against tools that differ from the gold's (get_order_status, refund)") {
		t.Errorf("no catalogue warning: %s", errs)
	}
}
