package main

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/store"
)

// itemIDs decodes items --json and returns the ids, sorted.
func itemIDs(t *testing.T, out string) ([]string, []map[string]any) {
	t.Helper()
	var rows []map[string]any
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("items --json: %v\n%s", err, out)
	}
	var ids []string
	for _, r := range rows {
		ids = append(ids, r["item"].(string))
	}
	sort.Strings(ids)
	return ids, rows
}

// TestItemsOverSSH: over SSH (in any flag spelling a reviewer might try) a
// reviewer lists their own queue and nothing else: not another reviewer's,
// not the items' agreed or disputed state, not the production model's
// calls; a lead lists every item with both, and one reviewer's queue.
func TestItemsOverSSH(t *testing.T) {
	ts := startTeamServer(t, 20, 6, "alice", "bob", "dan")
	ctx := context.Background()
	queue := func(r string) []string {
		q, err := ts.st.Queue(ctx, r, "")
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, a := range q {
			ids = append(ids, a.ItemID)
		}
		sort.Strings(ids)
		return ids
	}
	out, errOut, code := ts.run("alice", "", "items", "--json")
	if code != 0 {
		t.Fatalf("alice items: %d %s", code, errOut)
	}
	ids, rows := itemIDs(t, out)
	if strings.Join(ids, ",") != strings.Join(queue("alice"), ",") || len(ids) == len(ts.items) {
		t.Fatalf("alice sees %v; her queue is %v (of %d items)", ids, queue("alice"), len(ts.items))
	}
	for _, r := range rows {
		if _, ok := r["status"]; ok {
			t.Errorf("a reviewer's row has the item's status: %v", r)
		}
		if _, ok := r["observed_tool"]; ok {
			t.Errorf("a reviewer's row has the observed tool: %v", r)
		}
		if r["assignment"] != "pending" || r["first_user_message"] == "" {
			t.Errorf("a reviewer's row lacks her progress or the message: %v", r)
		}
	}
	for _, spelling := range [][]string{{"--reviewer", "bob"}, {"--reviewer=bob"}, {"--reviewer", "carol"}} {
		out, errOut, code := ts.run("alice", "", append([]string{"items", "--json"}, spelling...)...)
		if code != 0 || strings.TrimSpace(out) != "[]" {
			t.Errorf("alice items %v: exit %d, %q %s", spelling, code, out, errOut)
		}
	}
	for _, args := range [][]string{
		{"items", "--tool", "lookup_customer"},
		{"items", "--tool=(none)"},
		{"items", "--state", "disputed"},
		{"items", "--state=agreed"},
		{"items", "--as", "carol"},
		{"items", "--as=carol"},
		{"items", "--db", "/tmp/x.db"},
	} {
		if out, errOut, code := ts.run("alice", "", args...); code != 2 || out != "" {
			t.Errorf("alice %v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}

	out, errOut, code = ts.run("carol", "", "items", "--json")
	if code != 0 {
		t.Fatalf("carol items: %d %s", code, errOut)
	}
	ids, rows = itemIDs(t, out)
	want := append([]string(nil), ts.items...)
	sort.Strings(want)
	if strings.Join(ids, ",") != strings.Join(want, ",") {
		t.Fatalf("the lead sees %v, want every item %v", ids, want)
	}
	for _, r := range rows {
		if r["status"] != "labeling" && r["status"] != "sampled" || r["observed_tool"] == nil {
			t.Errorf("a lead's row: %v", r)
		}
	}
	out, _, _ = ts.run("carol", "", "items", "--reviewer", "dan", "--json")
	if ids, _ := itemIDs(t, out); strings.Join(ids, ",") != strings.Join(queue("dan"), ",") {
		t.Errorf("carol items --reviewer dan: %v, want %v", ids, queue("dan"))
	}
	out, _, _ = ts.run("carol", "", "items")
	for i, line := range strings.Split(out, "\n") {
		if len([]rune(line)) > 80 {
			t.Errorf("line %d is %d columns: %q", i+1, len([]rune(line)), line)
		}
	}
	if !strings.Contains(out, "OBSERVED TOOL") || !strings.Contains(out, ts.items[0]) {
		t.Errorf("the lead's list:\n%s", out)
	}
}

// TestItemsFilters: a lead's --state, --tool and --batch pick the items
// whose state, observed tool and batch they name; a bad --state is a usage
// error naming the choices; without an identity items is refused.
func TestItemsFilters(t *testing.T) {
	db, items := lblProject(t, 4)
	// alice and bob agree on the first item and disagree on the second.
	must := func(args ...string) string {
		t.Helper()
		out, errOut, code, _ := runCLI(db, "", args...)
		if code != 0 {
			t.Fatalf("%v: %d %s", args, code, errOut)
		}
		return out
	}
	call := `[{"tool":"get_order_status","args":{"order_id":"ORD-12345"}}]`
	must("labels", "import", lblWrite(t,
		lblLine(items[0], "alice", "no_call", ""), lblLine(items[0], "bob", "no_call", ""),
		lblLine(items[1], "alice", "no_call", ""), lblLine(items[1], "bob", "call", call)), "--as", "carol", "--for-others")
	for state, want := range map[string][]string{
		"agreed": {items[0]}, "disputed": {items[1]}, "gold": {items[0]}, "pending": {items[2], items[3]}, "adjudicated": nil,
	} {
		ids, _ := itemIDs(t, must("items", "--as", "carol", "--state", state, "--json"))
		sort.Strings(want)
		if strings.Join(ids, ",") != strings.Join(want, ",") {
			t.Errorf("--state %s: %v, want %v", state, ids, want)
		}
	}
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	it, err := st.Item(context.Background(), items[2])
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	tool := "(none)"
	if len(it.Observed) > 0 {
		tool = it.Observed[0].Name
	}
	_, rows := itemIDs(t, must("items", "--as", "carol", "--tool", tool, "--batch", "b1", "--json"))
	found := false
	for _, r := range rows {
		found = found || r["item"] == items[2]
		if r["observed_tool"] != tool {
			t.Errorf("--tool %s gave %v", tool, r)
		}
	}
	if !found {
		t.Errorf("--tool %s lacks %s", tool, items[2])
	}
	if ids, _ := itemIDs(t, must("items", "--as", "carol", "--batch", "nope", "--json")); len(ids) != 0 {
		t.Errorf("--batch nope: %v", ids)
	}
	if _, errOut, code, _ := runCLI(db, "", "items", "--as", "carol", "--state", "done"); code != 2 || !strings.Contains(errOut, "--state must be one of pending, disputed, agreed, adjudicated, gold") {
		t.Errorf("bad --state: %d %s", code, errOut)
	}
	if _, errOut, code, _ := runCLI(db, "", "items"); code != 2 || !strings.Contains(errOut, "--as NAME is required") {
		t.Errorf("anonymous: %d %s", code, errOut)
	}
	// alice's own queue, with her progress: the two items she labeled are
	// submitted, the rest pending; no word of agreement.
	out := must("items", "--as", "alice")
	if strings.Contains(out, "agreed") || strings.Contains(out, "disputed") || !strings.Contains(out, "YOUR STATUS") || !strings.Contains(out, "submitted") {
		t.Errorf("alice's queue:\n%s", out)
	}
}
