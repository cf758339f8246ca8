package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/catalogue"
	"github.com/goldtrace/goldtrace/internal/pgtest"
	"github.com/goldtrace/goldtrace/internal/shareddata"
	"github.com/goldtrace/goldtrace/trace"
)

// airlineChange is the scripted change of the tau-bench airline catalogue:
// get_reservation_details is renamed get_booking_details, cancel_reservation
// gains a required reason, and update_reservation_flights' cabin loses
// basic_economy.
func airlineChange(t *testing.T, old []trace.Tool) []trace.Tool {
	t.Helper()
	var next []trace.Tool
	for _, tool := range old {
		var schema map[string]any
		if err := json.Unmarshal(tool.Parameters, &schema); err != nil {
			t.Fatal(err)
		}
		props, _ := schema["properties"].(map[string]any)
		switch tool.Name {
		case "get_reservation_details":
			tool.Name = "get_booking_details"
		case "cancel_reservation":
			props["reason"] = map[string]any{"type": "string", "description": "Why the user cancels."}
			schema["required"] = append(schema["required"].([]any), "reason")
		case "update_reservation_flights":
			props["cabin"].(map[string]any)["enum"] = []any{"economy", "business"}
		}
		b, err := json.Marshal(schema)
		if err != nil {
			t.Fatal(err)
		}
		tool.Parameters = b
		next = append(next, tool)
	}
	return next
}

// airlineTrace is one conversation deciding call at turn 2.
func airlineTrace(id string, tools []trace.Tool, user, tool, args string) trace.Trace {
	return trace.Trace{ID: id, Tools: tools, Messages: []trace.Message{
		{Role: "system", Content: "You are an airline agent."},
		{Role: "user", Content: user},
		{Role: "assistant", ToolCalls: []trace.Call{trace.NewCall("c1", tool, args)}},
	}}
}

func writeJSONL(t *testing.T, path string, lines ...any) string {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		j, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

type labelLine struct {
	Item      string          `json:"item"`
	Reviewer  string          `json:"reviewer"`
	Decision  string          `json:"decision"`
	Calls     json.RawMessage `json:"calls"`
	Rationale string          `json:"rationale"`
}

// importBoth imports the same label for item from alice and from bob.
func importBoth(t *testing.T, db, dir, item, calls string) {
	t.Helper()
	for _, who := range []string{"alice", "bob"} {
		f := writeJSONL(t, filepath.Join(dir, who+"-"+item+".jsonl"),
			labelLine{Item: item, Reviewer: who, Decision: "call", Calls: json.RawMessage(calls), Rationale: "as the guide says"})
		if _, errs, code := expRun(t, db, "labels", "import", f, "--as", who); code != 0 {
			t.Fatalf("labels import %s %s: exit %d: %s", who, item, code, errs)
		}
	}
}

// TestStaleItemsAreRelabeledAgainstTheCurrentCatalogue is the re-review of
// stale gold end to end on the tau-bench airline tools: export v1, change
// the catalogue (a rename, a new required field, a dropped enum value),
// drift finds three items, sample --stale puts them back against the
// current catalogue, the reviewers pick the renamed tool and fill the new
// field, v2 is exported with the current tools on those items, and drift
// against the current catalogue finds nothing stale.
func TestStaleItemsAreRelabeledAgainstTheCurrentCatalogue(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testStaleRelabel(t, filepath.Join(t.TempDir(), "gt.db")) })
	t.Run("postgres", func(t *testing.T) { testStaleRelabel(t, pgtest.DSN(t)) })
}

func testStaleRelabel(t *testing.T, db string) {
	path := shareddata.Path(t, "tau-airline", "airline_tools.json")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	old, err := catalogue.Read(f, path)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	next := airlineChange(t, old)
	dir := t.TempDir()
	const (
		details = `[{"tool":"get_reservation_details","args":{"reservation_id":"ZFA04Y"}}]`
		cancel  = `[{"tool":"cancel_reservation","args":{"reservation_id":"ZFA04Y"}}]`
		flights = `[{"tool":"update_reservation_flights","args":{"reservation_id":"ZFA04Y","cabin":"basic_economy","flights":[{"flight_number":"HAT001","date":"2024-05-01"}],"payment_id":"credit_card_7815826"}}]`
		calc    = `[{"tool":"calculate","args":{"expression":"2 + 2"}}]`
	)
	traces := writeJSONL(t, filepath.Join(dir, "traces.jsonl"),
		airlineTrace("tr_details", old, "What is on reservation ZFA04Y?", "get_reservation_details", `{"reservation_id":"ZFA04Y"}`),
		airlineTrace("tr_cancel", old, "Cancel ZFA04Y please.", "cancel_reservation", `{"reservation_id":"ZFA04Y"}`),
		airlineTrace("tr_flights", old, "Move ZFA04Y to HAT001 on May 1, basic economy.", "update_reservation_flights", `{}`),
		airlineTrace("tr_calc", old, "What is 2 + 2?", "calculate", `{"expression":"2 + 2"}`))
	for _, args := range [][]string{
		{"users", "add", "alice", "--role", "reviewer"}, {"users", "add", "bob", "--role", "reviewer"}, {"users", "add", "carol", "--role", "lead"},
		{"import", traces},
		{"sample", "--n", "10", "--seed", "1", "--reviewers", "alice,bob", "--turns", "calls"},
	} {
		if _, errs, code := expRun(t, db, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
	}
	item := func(tr string) string { return trace.ItemID(tr, 2) }
	importBoth(t, db, dir, item("tr_details"), details)
	importBoth(t, db, dir, item("tr_cancel"), cancel)
	importBoth(t, db, dir, item("tr_flights"), flights)
	importBoth(t, db, dir, item("tr_calc"), calc)
	out := filepath.Join(dir, "out")
	if _, errs, code := expRun(t, db, "export", "airline", "--as", "carol", "--out", out, "-m", "v1"); code != 0 {
		t.Fatalf("export v1: %s", errs)
	}
	v1 := expRead(t, filepath.Join(out, "airline-v1.jsonl"))

	// The catalogue changes: drift names the three items.
	current := writeJSONL(t, filepath.Join(dir, "current.jsonl"), toAny(next)...)
	report, errs, code := expRun(t, db, "drift", "--gold", "airline@v1", "--tools", current, "--json")
	if code != 1 {
		t.Fatalf("drift v1: exit %d: %s", code, errs)
	}
	var r catalogue.Report
	if err := json.Unmarshal([]byte(report), &r); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, d := range r.Details {
		var ks []string
		for _, f := range d.Findings {
			ks = append(ks, f.Kind+":"+f.Suggest+f.Field)
		}
		kinds[d.ID] = strings.Join(ks, " ")
	}
	want := map[string]string{
		item("tr_details"): "tool_renamed:get_booking_details",
		item("tr_cancel"):  "newly_required:reason",
		item("tr_flights"): "enum_value_removed:cabin",
	}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Fatalf("drift findings %v, want %v", kinds, want)
	}

	// Back to the reviewers, against the current catalogue.
	if _, errs, code := expRun(t, db, "sample", "--stale", "airline@v1", "--tools", current, "--reviewers", "alice,bob", "--as", "carol"); code != 0 {
		t.Fatalf("sample --stale: exit %d: %s", code, errs)
	}
	// The old answers no longer validate where the catalogue changed: the
	// old tool name is unknown, the new required field is missing, the
	// dropped cabin is refused.
	for _, bad := range []struct{ item, calls, why string }{
		{item("tr_details"), details, "get_reservation_details"},
		{item("tr_cancel"), cancel, "reason"},
		{item("tr_flights"), flights, "cabin"},
	} {
		f := writeJSONL(t, filepath.Join(dir, "bad.jsonl"), labelLine{Item: bad.item, Reviewer: "alice", Decision: "call", Calls: json.RawMessage(bad.calls), Rationale: "old"})
		if _, errs, code := expRun(t, db, "labels", "import", f, "--as", "alice"); code != 2 || !strings.Contains(errs, bad.why) {
			t.Errorf("old answer of %s imported: exit %d: %s", bad.item, code, errs)
		}
	}
	importBoth(t, db, dir, item("tr_details"), `[{"tool":"get_booking_details","args":{"reservation_id":"ZFA04Y"}}]`)
	importBoth(t, db, dir, item("tr_cancel"), `[{"tool":"cancel_reservation","args":{"reservation_id":"ZFA04Y","reason":"change of plans"}}]`)
	importBoth(t, db, dir, item("tr_flights"), strings.Replace(flights, "basic_economy", "economy", 1))
	if _, errs, code := expRun(t, db, "export", "airline", "--as", "carol", "--out", out, "-m", "v2"); code != 0 {
		t.Fatalf("export v2: %s", errs)
	}
	if report, errs, code := expRun(t, db, "drift", "--gold", "airline@v2", "--tools", current); code != 0 || !strings.Contains(report, "0 of 4 items stale") {
		t.Errorf("drift v2: exit %d: %s%s", code, report, errs)
	}
	diff, errs, code := expRun(t, db, "diff", "airline@v1", "airline@v2", "--json")
	if code != 0 {
		t.Fatalf("diff: exit %d: %s", code, errs)
	}
	for _, id := range []string{item("tr_details"), item("tr_cancel"), item("tr_flights")} {
		if !strings.Contains(diff, id) {
			t.Errorf("diff does not name %s:\n%s", id, diff)
		}
	}
	if !strings.Contains(diff, `"tools"`) {
		t.Errorf("diff does not say the tools changed:\n%s", diff)
	}
	if strings.Contains(diff, item("tr_calc")) {
		t.Errorf("diff names the untouched item:\n%s", diff)
	}
	// The re-reviewed items carry the current catalogue, the untouched one
	// its own; v2's manifest lists both versions of the changed tools.
	recs := map[string]struct {
		Tools []trace.Tool `json:"available_tools"`
	}{}
	for _, line := range strings.Split(strings.TrimSpace(string(expRead(t, filepath.Join(out, "airline-v2.jsonl")))), "\n") {
		var rec struct {
			ID    string       `json:"id"`
			Tools []trace.Tool `json:"available_tools"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		recs[rec.ID] = struct {
			Tools []trace.Tool `json:"available_tools"`
		}{rec.Tools}
	}
	names := func(tools []trace.Tool) string {
		var n []string
		for _, t := range tools {
			n = append(n, t.Name)
		}
		return strings.Join(n, ",")
	}
	if got := names(recs[item("tr_details")].Tools); got != names(next) {
		t.Errorf("re-reviewed item offers %s", got)
	}
	if got := names(recs[item("tr_calc")].Tools); got != names(old) {
		t.Errorf("untouched item offers %s", got)
	}
	m2 := expManifest(t, filepath.Join(out, "airline-v2.manifest.json"))
	if len(m2.Catalogue["cancel_reservation"]) != 2 || len(m2.Catalogue["get_booking_details"]) != 1 {
		t.Errorf("v2 catalogue %v", m2.Catalogue)
	}
	// v1 is what it was.
	if _, errs, code := expRun(t, db, "export", "airline@v1", "--out", filepath.Join(dir, "again")); code != 0 {
		t.Fatalf("export airline@v1: %s", errs)
	}
	if string(expRead(t, filepath.Join(dir, "again", "airline-v1.jsonl"))) != string(v1) {
		t.Error("airline@v1 exports other bytes")
	}
}

func toAny(tools []trace.Tool) []any {
	out := make([]any, len(tools))
	for i, t := range tools {
		out[i] = t
	}
	return out
}
