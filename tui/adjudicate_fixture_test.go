package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// adjT0 is the fixed clock of the adjudication tests.
var adjT0 = time.Date(2026, 5, 3, 10, 0, 0, 0, time.UTC)

var adjTools = []trace.Tool{
	{Name: "get_order_status", Description: "Current status of one order.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string"},"verbose":{"type":"boolean"}},"required":["order_id"]}`)},
	{Name: "search_faq", Description: "Search the help centre.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`)},
}

// adjTrace is a short support conversation; its decision point is turn 2.
func adjTrace(i int) trace.Trace {
	order := fmt.Sprintf("ORD-%05d", 20000+i)
	return trace.Trace{
		ID:        fmt.Sprintf("tr_adj_%02d", i),
		Timestamp: adjT0.Add(time.Duration(i) * time.Minute),
		Tools:     adjTools,
		Messages: []trace.Message{
			{Role: "system", Content: "You are Nora, the support agent of Northwind Outfitters."},
			{Role: "user", Content: "Where is my order " + order + "? It was due yesterday."},
			{Role: "assistant", ToolCalls: []trace.Call{trace.NewCall("c1", "get_order_status", `{"order_id":"`+order+`"}`)}},
		},
	}
}

// adjFixture is a temp-file store with a lead (carol), two reviewers (alice,
// bob) and n items assigned to both in batch b1.
type adjFixture struct {
	st    *store.Store
	items []string
}

func newAdjFixture(t testing.TB, n int) adjFixture {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "gt.db"))
	if err != nil {
		t.Fatal(err)
	}
	// Each write is a second later, so disputes are queued in the order
	// the test makes them.
	tick := adjT0
	st.Now = func() time.Time { tick = tick.Add(time.Second); return tick }
	t.Cleanup(func() { st.Close() })
	for _, u := range []struct{ name, role string }{{"alice", store.RoleReviewer}, {"bob", store.RoleReviewer}, {"carol", store.RoleLead}} {
		if err := st.AddUser(ctx, u.name, u.role); err != nil {
			t.Fatal(err)
		}
	}
	f := adjFixture{st: st}
	traces := make([]trace.Trace, n)
	for i := range traces {
		traces[i] = adjTrace(i)
	}
	f.items = assignItems(t, st, traces, 2, "alice", "bob")
	return f
}

// submit stores a label; calls is a JSON list of {"tool","args"} ("" = no call).
func (f adjFixture) submit(t testing.TB, item, reviewer, calls, why string) {
	t.Helper()
	l := review.Label{Item: item, Reviewer: reviewer, Decision: review.DecisionNoCall, Rationale: why, GuideVersion: "g_test"}
	if calls != "" {
		l.Decision = review.DecisionCall
		if err := json.Unmarshal([]byte(calls), &l.Calls); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.st.SubmitLabel(context.Background(), l); err != nil {
		t.Fatal(err)
	}
}

// disputeArgs makes item disputed: same tool, different order ids.
func (f adjFixture) disputeArgs(t testing.TB, item string) {
	t.Helper()
	f.submit(t, item, "alice", `[{"tool":"get_order_status","args":{"order_id":"ORD-20000"}}]`, "The user gave the order number.")
	f.submit(t, item, "bob", `[{"tool":"get_order_status","args":{"order_id":"ord-20000 ","verbose":true}}]`, "Status lookup, with details.")
}

// disputeDecision makes item disputed: alice calls a tool, bob says no call.
func (f adjFixture) disputeDecision(t testing.TB, item string) {
	t.Helper()
	f.submit(t, item, "alice", `[{"tool":"search_faq","args":{"query":"late order"}}]`, "Policy question first.")
	f.submit(t, item, "bob", "", "Ask which order first.")
}

// newAdjRoot is carol's adjudication session over f, sized w×h, loaded.
func newAdjRoot(t testing.TB, f adjFixture, opts AdjudicateOptions, w, h int) (*Root, *AdjudicatePage) {
	t.Helper()
	if opts.Lead == "" {
		opts.Lead = "carol"
	}
	c := &Common{Styles: StylesFor(true), Keys: DefaultKeyMap(), API: as(t, f.st, opts.Lead), Now: func() time.Time { return adjT0 }}
	r := NewAdjudicateRoot(c, opts)
	r.status.after = noTimer // the status expiry timer is not run
	r.Update(tea.WindowSizeMsg{Width: w, Height: h})
	drain(r, r.Init())
	return r, r.Page(PageAdjudicate).(*AdjudicatePage)
}

// adjKeys sends keys to r and runs what they start: "type:TEXT" types
// text, anything else is a key name ("enter", "esc", "ctrl+s", "1", …).
func adjKeys(r *Root, keys ...string) {
	for _, k := range keys {
		var msgs []tea.KeyMsg
		switch k {
		case "enter":
			msgs = append(msgs, tea.KeyMsg{Type: tea.KeyEnter})
		case "esc":
			msgs = append(msgs, tea.KeyMsg{Type: tea.KeyEsc})
		case "space":
			msgs = append(msgs, tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}})
		case "down":
			msgs = append(msgs, tea.KeyMsg{Type: tea.KeyDown})
		case "up":
			msgs = append(msgs, tea.KeyMsg{Type: tea.KeyUp})
		case "right":
			msgs = append(msgs, tea.KeyMsg{Type: tea.KeyRight})
		case "left":
			msgs = append(msgs, tea.KeyMsg{Type: tea.KeyLeft})
		case "pgup":
			msgs = append(msgs, tea.KeyMsg{Type: tea.KeyPgUp})
		case "pgdown":
			msgs = append(msgs, tea.KeyMsg{Type: tea.KeyPgDown})
		case "ctrl+s":
			msgs = append(msgs, tea.KeyMsg{Type: tea.KeyCtrlS})
		case "ctrl+r":
			msgs = append(msgs, tea.KeyMsg{Type: tea.KeyCtrlR})
		case "ctrl+a":
			msgs = append(msgs, tea.KeyMsg{Type: tea.KeyCtrlA})
		case "ctrl+k":
			msgs = append(msgs, tea.KeyMsg{Type: tea.KeyCtrlK})
		default:
			text, _ := strings.CutPrefix(k, "type:")
			for _, r := range text {
				msgs = append(msgs, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
			}
		}
		for _, m := range msgs {
			_, cmd := r.Update(m)
			drain(r, cmd)
		}
	}
}

// adjView is the screen without ANSI codes.
func adjView(r *Root) string { return ansi.Strip(r.View()) }
