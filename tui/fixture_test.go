package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// t0 is the fixed clock of every TUI test.
var t0 = time.Date(2026, 5, 2, 9, 0, 0, 0, time.UTC)

var fixtureTools = []trace.Tool{
	{Name: "get_order_status", Description: "Current fulfilment status of one order.\nReturns the carrier too.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string","pattern":"^ORD-[0-9]{5}$"}},"required":["order_id"]}`)},
	{Name: "create_shipment", Description: "Ship an order with a carrier.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string"},"carrier":{"type":"string","enum":["ups","fedex","dhl"]},"express":{"type":"boolean"}},"required":["order_id","carrier"]}`)},
	{Name: "search_faq", Description: "Search the help centre articles.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`)},
}

// fixtureTrace is a short support conversation whose decision point (turn 3)
// follows a tool result.
func fixtureTrace(i int) trace.Trace {
	order := fmt.Sprintf("ORD-%05d", 10000+i)
	return trace.Trace{
		ID:        fmt.Sprintf("tr_%04d", i),
		Timestamp: t0,
		Metadata:  map[string]string{"model": "gpt-4.1", "cohort": "shipping"},
		Tools:     fixtureTools,
		Messages: []trace.Message{
			{Role: "system", Content: "You are Nora, the support agent of Northwind Outfitters. Be brief and kind.\nNever promise refunds."},
			{Role: "user", Content: "Hi! Where is my order " + order + "? It was supposed to arrive yesterday and I need it for a trip this weekend."},
			{Role: "assistant", ToolCalls: []trace.Call{trace.NewCall("c1", "search_faq", `{"query":"late delivery"}`)}},
			{Role: "tool", ToolCallID: "c1", Name: "search_faq", Content: `{"articles":[{"title":"My order is late","body":"Most late orders arrive within 2 days. Check the status first."}]}`},
			{Role: "assistant", ToolCalls: []trace.Call{trace.NewCall("c2", "get_order_status", `{"order_id":"`+order+`"}`)}},
		},
	}
}

// labelFixture is a temp-file store with n traces whose last decision point
// (turn 4) is assigned, in order, to every reviewer.
type labelFixture struct {
	st    *store.Store
	items []string
}

func newLabelFixture(t testing.TB, n int, reviewers ...string) labelFixture {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "gt.db"))
	if err != nil {
		t.Fatal(err)
	}
	st.Now = func() time.Time { return t0 }
	t.Cleanup(func() { st.Close() })
	for _, r := range reviewers {
		if err := st.AddUser(ctx, r, store.RoleReviewer); err != nil {
			t.Fatal(err)
		}
	}
	f := labelFixture{st: st}
	traces := make([]trace.Trace, n)
	for i := range traces {
		traces[i] = fixtureTrace(i)
	}
	f.items = assignItems(t, st, traces, 4, reviewers...)
	return f
}

// assignItems stores traces in batch b1 and assigns each one's decision
// point at turn to every reviewer, in order; it returns the item ids.
func assignItems(t testing.TB, st *store.Store, traces []trace.Trace, turn int, reviewers ...string) []string {
	t.Helper()
	ctx := context.Background()
	var items []string
	err := st.WithTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO batches(name, seed, per_item, created_at) VALUES ('b1', 1, 2, 'now')`); err != nil {
			return err
		}
		for i, tr := range traces {
			if _, err := st.InsertTrace(ctx, tx, tr, "test"); err != nil {
				return err
			}
			id := trace.ItemID(tr.ID, turn)
			items = append(items, id)
			for _, r := range reviewers {
				if _, err := tx.ExecContext(ctx, `INSERT INTO assignments(item_id, reviewer, batch, position, updated_at) VALUES (?, ?, 'b1', ?, 'now')`, id, r, i); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return items
}

// clock is a settable test clock.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

// newTestLabelRoot is the label session for reviewer over f, with no timers
// (tests send autosave messages themselves), sized w×h, first item loaded.
func newTestLabelRoot(t testing.TB, f labelFixture, reviewer string, w, h int) (*Root, *LabelPage, *clock) {
	t.Helper()
	clk := &clock{now: t0}
	c := &Common{Styles: StylesFor(true), Keys: DefaultKeyMap(), API: as(t, f.st, reviewer), Now: clk.Now}
	r := NewLabelRoot(c, LabelOptions{Reviewer: reviewer}, true)
	page := r.Page(PageLabel).(*LabelPage)
	page.after, r.status.after = noTimer, noTimer
	r.Update(tea.WindowSizeMsg{Width: w, Height: h})
	drain(r, r.Init())
	return r, page, clk
}
