package store

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/trace"
)

// TestReviewAgainAgainstTheCurrentCatalogue puts one of a trace's two gold
// items back with a new catalogue: that item alone is labeled against it
// (Item, LabelTargets) and read with it for export, on both engines; the
// other item of the trace keeps the trace's tools.
func TestReviewAgainAgainstTheCurrentCatalogue(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		ctx := context.Background()
		call := `[{"tool":"get_order_status","args":{"order_id":"ORD-1"}}]`
		back, kept := trace.ItemID("tr_a", 1), trace.ItemID("tr_a", 3)
		insertGoldFixture(t, st, []trace.Trace{sampleTrace("tr_a")},
			[]goldRow{{back, "agreed", "call", call}, {kept, "agreed", "no_call", "[]"}})
		current := []trace.Tool{
			{Name: "order_status", Description: "Shipping status.",
				Parameters: json.RawMessage(`{"properties":{"order_id":{"type":"string"},"carrier":{"type":"string"}},"required":["order_id","carrier"],"type":"object"}`)},
			{Name: "refund"},
		}
		b := StaleBatch{Name: "stale", PerItem: 2, CreatedBy: "carol", Tools: current,
			Items: []StaleItem{{Item: back, Reviewers: []string{"alice", "bob"}, Draft: []byte(`{"calls":[]}`), Note: "renamed"}}}
		if err := st.ReviewAgain(ctx, b); err != nil {
			t.Fatal(err)
		}
		names := func(tools []trace.Tool) string {
			s := ""
			for _, t := range tools {
				s += t.Name + ";"
			}
			return s
		}
		it, err := st.Item(ctx, back)
		if err != nil || names(it.Tools) != "order_status;refund;" || string(it.Tools[0].Parameters) != string(current[0].Parameters) {
			t.Fatalf("item put back offers %+v (%v)", it.Tools, err)
		}
		if it, err := st.Item(ctx, kept); err != nil || names(it.Tools) != "get_order_status;" {
			t.Fatalf("other item offers %+v (%v)", it.Tools, err)
		}
		targets, err := st.LabelTargets(ctx, []string{back, kept})
		if err != nil || names(targets[back].Tools) != "order_status;refund;" || names(targets[kept].Tools) != "get_order_status;" {
			t.Fatalf("label targets %+v (%v)", targets, err)
		}
		// Settle it again, then read the gold as export does.
		if _, err := st.testW(t).ExecContext(ctx, `INSERT INTO gold(item_id, status, decision, calls, acceptable, rationale, reviewers, adjudicator, guide_version, updated_at)
			VALUES (?, 'agreed', 'call', ?, '[]', 'renamed', '["alice","bob"]', '', 'g_000000000001', '2026-05-03T00:00:00Z')`,
			back, `[{"tool":"order_status","args":{"order_id":"ORD-1","carrier":"ups"}}]`); err != nil {
			t.Fatal(err)
		}
		tgs, err := st.GoldTraces(ctx, GoldFilter{})
		if err != nil || len(tgs) != 1 || len(tgs[0].Answers) != 2 {
			t.Fatalf("gold traces %+v %v", tgs, err)
		}
		for _, a := range tgs[0].Answers {
			switch a.ItemID {
			case back:
				if names(a.Tools) != "order_status;refund;" || a.ToolsKey == "" || a.ToolsKey == tgs[0].ToolsKey {
					t.Errorf("answer put back: tools %+v key %q", a.Tools, a.ToolsKey)
				}
			case kept:
				if a.Tools != nil {
					t.Errorf("answer kept: tools %+v", a.Tools)
				}
			}
		}
		lines, err := dataset.BuildLines(tgs[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range lines {
			want := "get_order_status"
			if l.ID == back {
				want = "order_status"
			}
			if len(l.Tools) == 0 || l.Tools[0].Name != want {
				t.Errorf("line %s offers %+v", l.ID, l.Tools)
			}
		}
		// Two tool sets: the trace's and the current catalogue.
		var n int
		if err := st.testW(t).QueryRowContext(ctx, `SELECT count(*) FROM toolsets`).Scan(&n); err != nil || n != 2 {
			t.Errorf("toolsets %d %v", n, err)
		}
	})
}
