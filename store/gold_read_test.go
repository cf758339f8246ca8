package store

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/trace"
)

// goldFixture inserts traces and gold rows; each gold row is
// {item, status, decision, calls JSON}.
type goldRow struct {
	item, status, decision, calls string
}

func insertGoldFixture(t *testing.T, st *Store, traces []trace.Trace, rows []goldRow) {
	t.Helper()
	ctx := context.Background()
	for _, u := range []struct{ name, role string }{{"alice", RoleReviewer}, {"bob", RoleReviewer}, {"carol", RoleLead}} {
		if err := st.AddUser(ctx, u.name, u.role); err != nil {
			t.Fatal(err)
		}
	}
	err := st.WithTx(ctx, func(tx *Tx) error {
		for _, tr := range traces {
			if _, err := st.InsertTrace(ctx, tx, tr, "fixture"); err != nil {
				return err
			}
		}
		for _, r := range rows {
			adj := ""
			if r.status == "adjudicated" {
				adj = "carol"
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO gold(item_id, status, decision, calls, acceptable, rationale, reviewers, adjudicator, guide_version, updated_at)
				VALUES (?, ?, ?, ?, '[]', 'because', '["alice","bob"]', ?, 'g_000000000001', '2026-05-02T00:00:00Z')`,
				r.item, r.status, r.decision, r.calls, adj); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func metaTrace(id, cohort string) trace.Trace {
	tr := sampleTrace(id)
	tr.Metadata = map[string]string{"cohort": cohort}
	tr.Messages[0].Content = "where is my package " + id + "?"
	return tr
}

func TestGoldTracesLoadsEachTraceOnceWithFilters(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	traces := []trace.Trace{metaTrace("tr_b", "billing"), metaTrace("tr_a", "refunds")}
	call := `[{"tool":"get_order_status","args":{"order_id":"ORD-1"}}]`
	rows := []goldRow{
		{trace.ItemID("tr_a", 1), "agreed", "call", call},
		{trace.ItemID("tr_a", 3), "adjudicated", "no_call", "[]"},
		{trace.ItemID("tr_b", 1), "agreed", "call", call},
	}
	insertGoldFixture(t, st, traces, rows)
	if _, err := st.testW(t).ExecContext(ctx, `INSERT INTO batches(name, seed, per_item, created_at) VALUES ('b1', 1, 2, 'now')`); err != nil {
		t.Fatal(err)
	}
	if _, err := st.testW(t).ExecContext(ctx, `INSERT INTO batch_items(batch, item_id, position) VALUES ('b1', ?, 0)`, trace.ItemID("tr_b", 1)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		filter GoldFilter
		want   []string // trace id: item ids
	}{
		{"all", GoldFilter{}, []string{"tr_a", rows[0].item, rows[1].item, "tr_b", rows[2].item}},
		{"batch", GoldFilter{Batches: []string{"b1"}}, []string{"tr_b", rows[2].item}},
		{"meta", GoldFilter{Meta: map[string][]string{"cohort": {"refunds"}}}, []string{"tr_a", rows[0].item, rows[1].item}},
		{"status", GoldFilter{Statuses: []string{"adjudicated"}}, []string{"tr_a", rows[1].item}},
		{"no-call tool", GoldFilter{Tools: []string{trace.NoTool}}, []string{"tr_a", rows[1].item}},
		{"tool", GoldFilter{Tools: []string{"get_order_status"}, Meta: map[string][]string{"cohort": {"billing", "x"}}}, []string{"tr_b", rows[2].item}},
		{"none", GoldFilter{Batches: []string{"nope"}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := st.GoldTraces(ctx, tc.filter)
			if err != nil {
				t.Fatal(err)
			}
			var flat []string
			for _, tg := range got {
				flat = append(flat, tg.Trace.ID)
				var msgs []trace.Message
				if err := json.Unmarshal(tg.MessagesJSON, &msgs); err != nil || len(msgs) != 4 || len(tg.Trace.Tools) != 1 || tg.Trace.Tools[0].Name != "get_order_status" {
					t.Errorf("trace %s not loaded: %d messages (%v), tools %+v", tg.Trace.ID, len(msgs), err, tg.Trace.Tools)
				}
				for _, a := range tg.Answers {
					flat = append(flat, a.ItemID)
					if a.Status == "adjudicated" && a.Adjudicator != "carol" || len(a.Reviewers) != 2 {
						t.Errorf("answer %+v", a)
					}
				}
			}
			if len(flat) != len(tc.want) {
				t.Fatalf("got %v, want %v", flat, tc.want)
			}
			for i := range flat {
				if flat[i] != tc.want[i] {
					t.Fatalf("got %v, want %v", flat, tc.want)
				}
			}
		})
	}
	got, _ := st.GoldTraces(ctx, GoldFilter{Meta: map[string][]string{"cohort": {"billing"}}})
	if string(got[0].MetadataJSON) != `{"cohort":"billing"}` || got[0].ToolsKey == "" {
		t.Errorf("metadata or tools key not loaded: %s, %q", got[0].MetadataJSON, got[0].ToolsKey)
	}
	if string(got[0].Answers[0].Calls[0].Args) != `{"order_id":"ORD-1"}` {
		t.Errorf("calls not decoded: %+v", got[0].Answers[0].Calls)
	}
}

func TestGoldTracesReportsBadGoldJSON(t *testing.T) {
	st := openTemp(t)
	insertGoldFixture(t, st, []trace.Trace{sampleTrace("tr_1")}, []goldRow{{trace.ItemID("tr_1", 1), "agreed", "call", `[{"tool":`}})
	_, err := st.GoldTraces(context.Background(), GoldFilter{})
	if err == nil || !strings.Contains(err.Error(), trace.ItemID("tr_1", 1)) {
		t.Fatalf("got %v, want an error naming the item", err)
	}
}

// Gold rows travel as one length-prefixed text: any text in any field comes
// back exactly.
func TestGoldTracesKeepsOddTextExactly(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	id := "tr:12:é\x1f"
	item := trace.ItemID(id, 1)
	rationale := "3:abc\x1f: 12:x\nnew line, ümlaut, \"quotes\" and \\ backslash:"
	insertGoldFixture(t, st, []trace.Trace{metaTrace(id, "x")}, []goldRow{{item, "adjudicated", "call", `[{"tool":"get_order_status","args":{"order_id":"A:1"}}]`}})
	if _, err := st.testW(t).ExecContext(ctx, `UPDATE gold SET rationale = ? WHERE item_id = ?`, rationale, item); err != nil {
		t.Fatal(err)
	}
	got, err := st.GoldTraces(ctx, GoldFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Trace.ID != id || len(got[0].Answers) != 1 {
		t.Fatalf("got %+v", got)
	}
	a := got[0].Answers[0]
	if a.ItemID != item || a.Turn != 1 || a.Rationale != rationale || a.Adjudicator != "carol" || a.Status != "adjudicated" ||
		a.GuideVersion != "g_000000000001" || string(a.Calls[0].Args) != `{"order_id":"A:1"}` || strings.Join(a.Reviewers, ",") != "alice,bob" {
		t.Errorf("answer %+v", a)
	}
}
