package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/store/storetest"
)

// rvDisputed creates a database where reviewers alice and bob disagree on
// one item's order id (alice ORD-1, bob ORD-2), carol is a lead and dave a
// reviewer without assignments. It returns the database path and the item.
func rvDisputed(t *testing.T) (string, string) {
	t.Helper()
	return rvDisputedAt(t, filepath.Join(t.TempDir(), "gt.db"))
}

// rvDisputedAt is rvDisputed at path (a file, or a PostgreSQL DSN).
func rvDisputedAt(t *testing.T, path string) (string, string) {
	t.Helper()
	ctx := context.Background()
	st, item := storetest.OneItem(t, path)
	defer st.Close()
	for _, l := range []struct{ who, order string }{{"alice", "ORD-1"}, {"bob", "ORD-2"}} {
		_, err := st.SubmitLabel(ctx, review.Label{Item: item, Reviewer: l.who, Decision: review.DecisionCall, Seconds: 30,
			Calls: []review.LabelCall{{Tool: "get_order_status", Args: json.RawMessage(`{"order_id":"` + l.order + `"}`)}}, Rationale: l.who + " thinks so"})
		if err != nil {
			t.Fatal(err)
		}
	}
	return path, item
}

// rvRun runs goldtrace with args against db and returns stdout, stderr and
// the exit code main would use.
func rvRun(t *testing.T, db string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	out, errOut, code, _ := runCLI(db, stdin, args...)
	return out, errOut, code
}

func TestResolveCLIPickMakesGold(t *testing.T) {
	db, item := rvDisputed(t)
	out, errs, code := rvRun(t, db, "", "resolve", item, "--as", "carol", "--pick", "bob", "--reason", "bob read the last message", "--rule", "order_id=fuzzy")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "is gold (adjudicated by carol)") || !strings.Contains(out, "ORD-2") {
		t.Errorf("output: %s", out)
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	g, err := st.GoldOf(context.Background(), item)
	if err != nil || g.Status != review.GoldAdjudicated || string(g.Calls[0].Args) != `{"order_id":"ORD-2"}` ||
		g.Calls[0].ArgRules["order_id"].Match != "fuzzy" || g.Reason != "bob read the last message" {
		t.Fatalf("gold: %+v %v", g, err)
	}
	// The lead's status now counts it adjudicated and gold.
	out, errs, code = rvRun(t, db, "", "status", "--as", "carol", "--json")
	if code != 0 {
		t.Fatalf("status: %s", errs)
	}
	var s store.Status
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if *s.Items.Adjudicated != 1 || *s.Items.Gold != 1 || s.Agreement.Pairs[0].A != "alice" {
		t.Errorf("status after resolve: %+v", s.Items)
	}
}

func TestResolveCLIErrors(t *testing.T) {
	db, item := rvDisputed(t)
	labelFile := filepath.Join(t.TempDir(), "label.json")
	os.WriteFile(labelFile, []byte(`{"decision":"maybe","calls":[]}`), 0o644)
	tests := []struct {
		name string
		args []string
		msg  string
	}{
		{"unknown reviewer", []string{"resolve", item, "--as", "carol", "--pick", "zed", "--reason", "r"}, `no label by "zed"`},
		{"non-lead", []string{"resolve", item, "--as", "dave", "--pick", "bob", "--reason", "r"}, "dave is a reviewer; only a lead"},
		{"missing reason", []string{"resolve", item, "--as", "carol", "--pick", "bob"}, "--reason is required"},
		{"missing --as", []string{"resolve", item, "--pick", "bob", "--reason", "r"}, "--as LEAD is required"},
		{"two actions", []string{"resolve", item, "--as", "carol", "--pick", "bob", "--accept", "--reason", "r"}, "choose one of"},
		{"nothing to do", []string{"resolve", item, "--as", "carol", "--reason", "r"}, "say what to do"},
		{"bad rule", []string{"resolve", item, "--as", "carol", "--pick", "bob", "--reason", "r", "--rule", "order_id=loose"}, `unknown "loose"`},
		{"rule on a missing arg", []string{"resolve", item, "--as", "carol", "--pick", "bob", "--reason", "r", "--rule", "nope=any"}, `rule for "nope"`},
		{"bad label", []string{"resolve", item, "--as", "carol", "--label", labelFile, "--reason", "r"}, `decision "maybe"`},
		{"unknown item", []string{"resolve", "it_nope", "--as", "carol", "--pick", "bob", "--reason", "r"}, `item "it_nope": not found`},
		{"both needs two", []string{"resolve", item, "--as", "carol", "--both", "bob", "--reason", "r"}, "want two reviewers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errs, code := rvRun(t, db, "", tt.args...)
			if code != 2 || !strings.Contains(errs, tt.msg) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
				t.Errorf("exit %d, stderr %q; want 2 and one line with %q", code, errs, tt.msg)
			}
		})
	}
	if _, errs, code := rvRun(t, db, "", "resolve", item, "--as", "carol", "--pick", "alice", "--reason", "r"); code != 0 {
		t.Fatalf("resolve: %s", errs)
	}
	_, errs, code := rvRun(t, db, "", "resolve", item, "--as", "carol", "--pick", "bob", "--reason", "r")
	if code != 2 || !strings.Contains(errs, "already adjudicated by carol, not disputed") {
		t.Errorf("not disputed: %d %q", code, errs)
	}
	if _, errs, code := rvRun(t, db, "", "resolve", item, "--as", "carol", "--pick", "bob", "--reason", "second look", "--force"); code != 0 {
		t.Errorf("--force: %s", errs)
	}
}

func TestResolveCLILabelBothAndSendBack(t *testing.T) {
	db, item := rvDisputed(t)
	label := `{"item":"` + item + `","reviewer":"ignored","decision":"call","calls":[{"tool":"get_order_status","args":{"order_id":"ORD-3"}}],"rationale":"the newest order"}`
	out, errs, code := rvRun(t, db, label, "resolve", item, "--as", "carol", "--label", "-", "--reason", "merged", "--json")
	if code != 0 {
		t.Fatalf("--label: %s", errs)
	}
	var g review.Gold
	if err := json.Unmarshal([]byte(out), &g); err != nil || !review.ArgsEqual(g.Calls[0].Args, json.RawMessage(`{"order_id":"ORD-3"}`)) || g.Acceptable == nil || g.Rationale != "the newest order" {
		t.Fatalf("merged gold: %s %v", out, err)
	}
	out, errs, code = rvRun(t, db, "", "resolve", item, "--as", "carol", "--both", "alice,bob", "--reason", "either order fits", "--force",
		"--propose-guide", "say which order to use when there are two")
	if code != 0 || !strings.Contains(out, "+1 acceptable") || !strings.Contains(out, "guide change proposed") {
		t.Fatalf("--both: %d %s %s", code, out, errs)
	}
	out, errs, code = rvRun(t, db, "", "resolve", item, "--as", "carol", "--send-back", "--to", "bob", "--reason", "check the order date", "--force")
	if code != 0 || !strings.Contains(out, "sent back") {
		t.Fatalf("--send-back: %d %s %s", code, out, errs)
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	q, _ := st.Queue(context.Background(), "bob", "")
	notes, _ := st.Notes(context.Background(), item)
	if len(q) != 1 || len(notes) != 2 || notes[1].Body != "check the order date" {
		t.Errorf("after send-back: queue %+v notes %+v", q, notes)
	}
}

func TestSettingsCLIReviewAgreed(t *testing.T) {
	db, _ := rvDisputed(t)
	if _, errs, code := rvRun(t, db, "", "settings", "set", "review-agreed", "true", "--as", "dave"); code != 2 || !strings.Contains(errs, "only a lead") {
		t.Errorf("reviewer sets: %d %s", code, errs)
	}
	out, errs, code := rvRun(t, db, "", "settings", "set", "review-agreed", "true", "--as", "carol")
	if code != 0 || out != "review_agreed = true\n" {
		t.Fatalf("lead sets: %d %q %s", code, out, errs)
	}
	if out, _, _ := rvRun(t, db, "", "settings"); !strings.Contains(out, "review_agreed = true") {
		t.Errorf("settings: %s", out)
	}
}

func TestResolveCLILabelWithoutArgs(t *testing.T) {
	db, item := rvDisputed(t)
	// Missing args are {}, which this tool's schema refuses (order_id is
	// required): checked as a reviewer's label would be.
	out, errs, code := rvRun(t, db, `{"decision":"call","calls":[{"tool":"get_order_status"}]}`, "resolve", item, "--as", "carol", "--label", "-", "--reason", "no id needed", "--json")
	if code != 2 || !strings.Contains(errs, "order_id is required") {
		t.Fatalf("missing args: exit %d %q %q", code, out, errs)
	}
	_, errs, code = rvRun(t, db, `{"decision":"call","calls":[]}`, "resolve", item, "--as", "carol", "--label", "-", "--reason", "r", "--force")
	if code != 2 || !strings.Contains(errs, "decision call needs at least one call") {
		t.Errorf("empty call list: %d %s", code, errs)
	}
	// A lead's label fits the item's tools as a reviewer's must: a tool the
	// item does not offer, or arguments its schema refuses, are one line,
	// exit 2, and the gold stays as it was.
	for _, bad := range []struct{ label, want string }{
		{`{"decision":"call","calls":[{"tool":"delete_everything","args":{}}]}`, `"delete_everything" is not one of the tools offered here`},
		{`{"decision":"call","calls":[{"tool":"get_order_status","args":{"order_id":7}}]}`, "order_id"},
	} {
		out, errs, code := rvRun(t, db, bad.label, "resolve", item, "--as", "carol", "--label", "-", "--reason", "r", "--force")
		if code != 2 || !strings.Contains(errs, "does not fit") || !strings.Contains(errs, bad.want) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("resolve --label %s: exit %d %q %q", bad.label, code, out, errs)
		}
	}
	after, _, _ := rvRun(t, db, "", "items", "--state", "gold", "--as", "carol", "--json")
	if strings.Contains(after, "delete_everything") {
		t.Errorf("a refused label reached the gold: %s", after)
	}
}

// TestResolveRuleOnAgreedThenExport: resolve --rule on an agreed item exits
// 0 and the next export carries it as adjudicated gold by that lead (it
// used to fail with "agreed gold has an adjudicator").
func TestResolveRuleOnAgreedThenExport(t *testing.T) {
	dir := t.TempDir()
	v1 := filepath.Join(dir, ciProject(t, dir))
	db := filepath.Join(dir, "goldtrace.db")
	f, err := os.Open(v1)
	if err != nil {
		t.Fatal(err)
	}
	var item, arg string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() && item == "" {
		rec, err := dataset.DecodeRecord(sc.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if rec.Provenance.Status != gold.StatusAgreed || len(rec.ExpectedCalls) == 0 {
			continue
		}
		var args map[string]json.RawMessage
		if json.Unmarshal(rec.ExpectedCalls[0].Args, &args) == nil {
			for k := range args {
				item, arg = rec.ID, k
				break
			}
		}
	}
	f.Close()
	if item == "" {
		t.Fatal("no agreed item with an argument in the fixture")
	}
	if _, errOut, code := expRun(t, db, "resolve", item, "--as", "carol", "--rule", arg+"=fuzzy", "--reason", "wording varies"); code != 0 {
		t.Fatalf("resolve --rule: exit %d %s", code, errOut)
	}
	out := filepath.Join(dir, "v2")
	if _, errOut, code := expRun(t, db, "export", "support", "--as", "carol", "--out", out); code != 0 {
		t.Fatalf("export after resolve --rule: exit %d %s", code, errOut)
	}
	data, err := os.ReadFile(filepath.Join(out, "support-v2.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		rec, err := dataset.DecodeRecord([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		if rec.ID != item {
			continue
		}
		if rec.Provenance.Status != gold.StatusAdjudicated || rec.Provenance.Adjudicator == nil || *rec.Provenance.Adjudicator != "carol" ||
			rec.ExpectedCalls[0].ArgRules[arg].Match != gold.MatchFuzzy {
			t.Errorf("exported record: %+v", rec)
		}
		return
	}
	t.Errorf("%s is not in v2", item)
}
