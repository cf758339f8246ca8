package dataset

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

func versionOf(t *testing.T, golds ...TraceGold) Content {
	t.Helper()
	var lines []Line
	for _, tg := range golds {
		ls, err := BuildLines(tg)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, ls...)
	}
	c, err := Assemble(lines)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestDiffSourcesNamesWhatChanged(t *testing.T) {
	base := func(id string) TraceGold {
		return TraceGold{Trace: orderTrace(id), Answers: []Answer{callAnswer(2), noCallAnswer(4)}}
	}
	a := versionOf(t, base("tr_same"), base("tr_tool"), base("tr_arg"), base("tr_rule"), base("tr_gone"), base("tr_prov"))
	tool, arg, rule, prov := base("tr_tool"), base("tr_arg"), base("tr_rule"), base("tr_prov")
	tool.Answers[0].Calls = []gold.ExpectedCall{{Tool: "get_order_history", Args: json.RawMessage(`{}`)}}
	arg.Answers[0].Calls[0].Args = json.RawMessage(`{"order_id":"ORD-1"}`)
	rule.Answers[0].Calls[0].ArgRules = map[string]gold.ArgRule{"order_id": {Match: gold.MatchFuzzy}}
	prov.Answers[1].Status, prov.Answers[1].Adjudicator, prov.Answers[1].Rationale = gold.StatusAdjudicated, "carol", "text answer"
	b := versionOf(t, base("tr_same"), tool, arg, rule, prov, base("tr_new"))

	d, err := DiffSources(Source{"a", bytes.NewReader(a.Bytes())}, Source{"b", bytes.NewReader(b.Bytes())})
	if err != nil {
		t.Fatal(err)
	}
	ids := func(tr string, turn int) string { return trace.ItemID(tr, turn) }
	wantIDs := func(got []string, want ...string) {
		t.Helper()
		set := map[string]bool{}
		for _, w := range want {
			set[w] = true
		}
		if len(got) != len(want) {
			t.Fatalf("got %v, want %v", got, want)
		}
		for _, g := range got {
			if !set[g] {
				t.Fatalf("got %v, want %v", got, want)
			}
		}
	}
	wantIDs(d.Added, ids("tr_new", 2), ids("tr_new", 4))
	wantIDs(d.Removed, ids("tr_gone", 2), ids("tr_gone", 4))
	byID := map[string]ItemChange{}
	var changed []string
	for _, c := range d.Changed {
		byID[c.ID] = c
		changed = append(changed, c.ID)
	}
	wantIDs(changed, ids("tr_tool", 2), ids("tr_arg", 2), ids("tr_rule", 2), ids("tr_prov", 4))
	tests := []struct {
		id        string
		kinds     string
		wantField string
	}{
		{ids("tr_tool", 2), "tool, args, rules", `expected_tool: "get_order_status" → "get_order_history"`},
		{ids("tr_arg", 2), "args", `expected_calls[0].args.order_id: "ORD-9182" → "ORD-1"`},
		{ids("tr_rule", 2), "rules", `expected_calls[0].arg_rules.order_id.match: "exact" → "fuzzy"`},
		{ids("tr_prov", 4), "rationale, provenance", `provenance.status: "agreed" → "adjudicated"`},
	}
	for _, tc := range tests {
		c := byID[tc.id]
		if got := strings.Join(c.Kinds, ", "); got != tc.kinds {
			t.Errorf("%s kinds: got %q, want %q (%+v)", tc.id, got, tc.kinds, c.Fields)
		}
		var fields []string
		for _, f := range c.Fields {
			fields = append(fields, f.Path+": "+string(f.From)+" → "+string(f.To))
		}
		if !strings.Contains(strings.Join(fields, "\n"), tc.wantField) {
			t.Errorf("%s fields lack %s:\n%s", tc.id, tc.wantField, strings.Join(fields, "\n"))
		}
	}
}

func TestDiffSourcesRejectsUnsortedInput(t *testing.T) {
	c := versionOf(t, TraceGold{Trace: orderTrace("tr_1"), Answers: []Answer{callAnswer(2), noCallAnswer(4)}})
	lines := strings.SplitAfter(string(c.Bytes()), "\n")
	swapped := lines[1] + lines[0]
	_, err := DiffSources(Source{"a", strings.NewReader(swapped)}, Source{"b", bytes.NewReader(c.Bytes())})
	if err == nil || !strings.Contains(err.Error(), "a:2:") {
		t.Fatalf("got %v, want an error naming a:2", err)
	}
}

func TestNewManifestChangesAgainstParent(t *testing.T) {
	v1 := versionOf(t, TraceGold{Trace: orderTrace("tr_1"), Answers: []Answer{callAnswer(2), noCallAnswer(4)}})
	m1 := NewManifest(VersionInfo{Name: "d", Version: 1}, v1)
	if m1.ParentVersion != nil || len(m1.Changes.Added) != 2 || len(m1.Changes.Changed) != 0 {
		t.Errorf("v1: parent %v changes %+v", m1.ParentVersion, m1.Changes)
	}
	if m1.Agreement.Agreed != 1 || m1.Agreement.Adjudicated != 1 || m1.Agreement.AgreedRate != 0.5 || m1.Agreement.KappaTool != nil {
		t.Errorf("agreement %+v", m1.Agreement)
	}
	if len(m1.GuideVersions) != 1 || m1.ToolCounts[trace.NoTool] != 1 || m1.File != "d-v1.jsonl" {
		t.Errorf("manifest %+v", m1)
	}
	changed := noCallAnswer(4)
	changed.Rationale = "re-adjudicated"
	v2 := versionOf(t, TraceGold{Trace: orderTrace("tr_1"), Answers: []Answer{changed}}, TraceGold{Trace: orderTrace("tr_2"), Answers: []Answer{noCallAnswer(4)}})
	kappa := 0.61234
	m2 := NewManifest(VersionInfo{Name: "d", Version: 2, ParentVersion: 1, ParentHashes: v1.Hashes, Labels: LabelAgreement{KappaTool: &kappa}}, v2)
	want := Changes{Added: []string{trace.ItemID("tr_2", 4)}, Removed: []string{trace.ItemID("tr_1", 2)}, Changed: []string{trace.ItemID("tr_1", 4)}}
	if *m2.ParentVersion != 1 || strings.Join(m2.Changes.Added, ",") != strings.Join(want.Added, ",") ||
		strings.Join(m2.Changes.Removed, ",") != strings.Join(want.Removed, ",") || strings.Join(m2.Changes.Changed, ",") != strings.Join(want.Changed, ",") {
		t.Errorf("v2 changes %+v, want %+v", m2.Changes, want)
	}
	if *m2.Agreement.KappaTool != 0.6123 {
		t.Errorf("kappa %v", *m2.Agreement.KappaTool)
	}
	b, err := EncodeManifest(m2)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := EncodeManifest(back)
	if !bytes.Equal(b, again) {
		t.Errorf("manifest does not round-trip:\n%s\n%s", b, again)
	}
	if !bytes.HasPrefix(b, []byte("{\n  \"name\": \"d\",\n  \"version\": 2,\n  \"parent_version\": 1,")) {
		t.Errorf("manifest key order:\n%s", b[:80])
	}
}
