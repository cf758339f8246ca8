package store

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/review"
)

// disputedItem assigns an item to alice and bob, adds lead carol, and has
// alice and bob disagree on the order id.
func disputedItem(t *testing.T, st *Store) string {
	t.Helper()
	ctx := context.Background()
	item := assignTwo(t, st)
	if err := st.AddUser(ctx, "carol", RoleLead); err != nil {
		t.Fatal(err)
	}
	a := callLabel(item, "alice", `{"order_id":"ORD-1"}`)
	a.Rationale = "one open order"
	if _, err := st.SubmitLabel(ctx, a); err != nil {
		t.Fatal(err)
	}
	if set, err := st.SubmitLabel(ctx, callLabel(item, "bob", `{"order_id":"ORD-2"}`)); err != nil || set.Comparison.Agreed {
		t.Fatalf("bob: %+v %v", set, err)
	}
	return item
}

func itemStatus(t *testing.T, st *Store, item string) string {
	t.Helper()
	var status string
	if err := st.Reader().QueryRowContext(context.Background(), `SELECT status FROM items WHERE id = ?`, item).Scan(&status); err != nil {
		t.Fatal(err)
	}
	return status
}

func TestResolveDecisions(t *testing.T) { forEngines(t, testResolveDecisions) }

func testResolveDecisions(t *testing.T, engine string) {
	merged := review.Label{Decision: review.DecisionCall, Calls: []review.LabelCall{{Tool: "get_order_status", Args: json.RawMessage(`{"order_id":"ORD-3"}`)}}}
	tests := []struct {
		name       string
		r          Resolution
		calls      string
		acceptable string
		rationale  string
	}{
		{"pick", Resolution{Pick: "alice"}, `[{"tool":"get_order_status","args":{"order_id":"ORD-1"}}]`, `[]`, "one open order"},
		{"merge", Resolution{Label: &merged}, `[{"tool":"get_order_status","args":{"order_id":"ORD-3"}}]`, `[]`, "one open order\n\nbob: status lookup"},
		{"both", Resolution{Both: []string{"bob", "alice"}}, `[{"tool":"get_order_status","args":{"order_id":"ORD-2"}}]`,
			`[[{"tool":"get_order_status","args":{"order_id":"ORD-1"}}]]`, "status lookup\n\nalice: one open order"},
		{"pick with rule", Resolution{Pick: "bob", Rules: []review.ArgRuleSpec{{Arg: "order_id", Rule: gold.ArgRule{Match: gold.MatchFuzzy}}}},
			`[{"tool":"get_order_status","args":{"order_id":"ORD-2"},"arg_rules":{"order_id":{"match":"fuzzy"}}}]`, `[]`, "status lookup"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			st := openEngine(t, engine)
			item := disputedItem(t, st)
			r := tt.r
			r.Item, r.Lead, r.Reason = item, "carol", "guide §3"
			g, err := st.Resolve(ctx, r)
			if err != nil {
				t.Fatal(err)
			}
			if g.Status != review.GoldAdjudicated || g.Adjudicator != "carol" {
				t.Errorf("gold %+v", g)
			}
			var status, calls, acceptable, rationale, adjudicator, reason string
			err = st.Reader().QueryRowContext(ctx, `SELECT i.status, g.calls, g.acceptable, g.rationale, g.adjudicator, g.reason
				FROM items i JOIN gold g ON g.item_id = i.id WHERE i.id = ?`, item).Scan(&status, &calls, &acceptable, &rationale, &adjudicator, &reason)
			if err != nil {
				t.Fatal(err)
			}
			if status != "adjudicated" || calls != tt.calls || acceptable != tt.acceptable || rationale != tt.rationale || adjudicator != "carol" || reason != "guide §3" {
				t.Errorf("stored: status %s\ncalls %s\nacceptable %s\nrationale %q", status, calls, acceptable, rationale)
			}
			var audits int
			st.Reader().QueryRowContext(ctx, `SELECT count(*) FROM adjudications WHERE item_id = ? AND lead = 'carol' AND reason = 'guide §3'`, item).Scan(&audits)
			if audits != 1 {
				t.Errorf("audit rows: %d", audits)
			}
			if q, _ := st.DisputedQueue(ctx, DisputeFilter{}); len(q) != 0 {
				t.Errorf("resolved item still queued: %+v", q)
			}
		})
	}
}

func TestResolveRefusals(t *testing.T) { onEngines(t, testResolveRefusals) }

func testResolveRefusals(t *testing.T, st *Store) {
	ctx := context.Background()
	item := disputedItem(t, st)
	base := Resolution{Item: item, Lead: "carol", Reason: "r", Pick: "alice"}
	with := func(f func(*Resolution)) Resolution { r := base; f(&r); return r }
	tests := []struct {
		name string
		r    Resolution
		is   error
		msg  string
	}{
		{"reviewer is not a lead", with(func(r *Resolution) { r.Lead = "alice" }), ErrForbidden, "only a lead"},
		{"unknown lead", with(func(r *Resolution) { r.Lead = "zed" }), ErrNotFound, "unknown user"},
		{"unknown reviewer", with(func(r *Resolution) { r.Pick = "zed" }), ErrNotFound, `no label by "zed"`},
		{"unknown item", with(func(r *Resolution) { r.Item = "it_nope" }), ErrNotFound, "it_nope"},
		{"no reason", with(func(r *Resolution) { r.Reason = " " }), nil, "needs a reason"},
		{"two choices", with(func(r *Resolution) { r.Both = []string{"alice", "bob"} }), nil, "choose one"},
		{"accept a real dispute", with(func(r *Resolution) { r.Pick = ""; r.Accept = true }), ErrConflict, "not agreed"},
		{"rules without gold", with(func(r *Resolution) {
			r.Pick = ""
			r.Rules = []review.ArgRuleSpec{{Arg: "order_id"}}
		}), ErrConflict, "no gold yet"},
		{"stale screen", with(func(r *Resolution) { r.Seen = "2000-01-01T00:00:00Z" }), ErrConflict, "changed since"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := st.Resolve(ctx, tt.r)
			if err == nil || (tt.is != nil && !errors.Is(err, tt.is)) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("got %v, want %v containing %q", err, tt.is, tt.msg)
			}
		})
	}
	if itemStatus(t, st, item) != "disputed" {
		t.Fatal("a refused decision changed the item")
	}
	if _, err := st.Resolve(ctx, base); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Resolve(ctx, with(func(r *Resolution) { r.Pick = "bob" })); !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "already adjudicated by carol") {
		t.Fatalf("second resolve without force: %v", err)
	}
	g, err := st.Resolve(ctx, with(func(r *Resolution) { r.Pick = "bob"; r.Force = true }))
	if err != nil || string(g.Calls[0].Args) != `{"order_id":"ORD-2"}` {
		t.Fatalf("forced re-adjudication: %+v %v", g, err)
	}
	g, err = st.Resolve(ctx, with(func(r *Resolution) {
		r.Pick = ""
		r.Rules = []review.ArgRuleSpec{{Arg: "order_id", Rule: gold.ArgRule{Match: gold.MatchAny}}}
	}))
	if err != nil || g.Calls[0].ArgRules["order_id"].Match != gold.MatchAny || string(g.Calls[0].Args) != `{"order_id":"ORD-2"}` {
		t.Fatalf("rules on existing gold: %+v %v", g, err)
	}
	var actions string
	st.Reader().QueryRowContext(ctx, `SELECT group_concat(action, ',' ORDER BY id) FROM adjudications`).Scan(&actions)
	if actions != "pick,pick,rules" {
		t.Errorf("audit trail: %s", actions)
	}
}

func TestSendBackReopensForReviewers(t *testing.T) { onEngines(t, testSendBackReopensForReviewers) }

func testSendBackReopensForReviewers(t *testing.T, st *Store) {
	ctx := context.Background()
	item := disputedItem(t, st)
	if err := st.SendBack(ctx, item, "alice", "look again", nil, false); !errors.Is(err, ErrForbidden) {
		t.Fatalf("reviewer sends back: %v", err)
	}
	if err := st.SendBack(ctx, item, "carol", "", nil, false); err == nil {
		t.Fatal("send back without a note")
	}
	if err := st.SendBack(ctx, item, "carol", "look again", []string{"zed"}, false); !errors.Is(err, ErrNotFound) {
		t.Fatalf("send back to a stranger: %v", err)
	}
	if err := st.SendBack(ctx, item, "carol", "order id: see the last user message", []string{"bob"}, false); err != nil {
		t.Fatal(err)
	}
	if s := itemStatus(t, st, item); s != "labeling" {
		t.Errorf("status %s", s)
	}
	q, err := st.Queue(ctx, "bob", "")
	if err != nil || len(q) != 1 || q[0].ItemID != item || q[0].Status != AssignPending {
		t.Fatalf("bob's queue: %+v %v", q, err)
	}
	if q, _ := st.Queue(ctx, "alice", ""); len(q) != 0 {
		t.Errorf("alice was not sent back: %+v", q)
	}
	if _, err := st.Label(ctx, item, "bob"); !errors.Is(err, ErrNotFound) {
		t.Errorf("bob's label survives: %v", err)
	}
	// alice's label was kept through the comparison: she may not take it
	// back now that the item is labeling again (only bob was sent back).
	if _, err := st.Reopen(ctx, item, "alice", func(review.Label) ([]byte, error) { return []byte(`{}`), nil }); !errors.Is(err, ErrConflict) ||
		!strings.Contains(err.Error(), "has been compared") {
		t.Fatalf("alice reopens her kept label after a send-back to bob: %v", err)
	}
	if _, err := st.Label(ctx, item, "alice"); err != nil {
		t.Fatalf("alice's kept label: %v", err)
	}
	notes, err := st.Notes(ctx, item)
	if err != nil || len(notes) != 1 || notes[0].Kind != NoteSendBack || notes[0].To[0] != "bob" || notes[0].Author != "carol" {
		t.Fatalf("notes: %+v %v", notes, err)
	}
	var payload string
	st.Reader().QueryRowContext(ctx, `SELECT payload FROM adjudications WHERE action = 'send_back'`).Scan(&payload)
	if !strings.Contains(payload, `"ORD-2"`) {
		t.Errorf("the returned label is not kept in the audit: %s", payload)
	}
	if set, err := st.SubmitLabel(ctx, callLabel(item, "bob", `{"order_id":"ORD-1"}`)); err != nil || !set.Comparison.Agreed {
		t.Fatalf("bob relabels: %+v %v", set, err)
	}
	if err := st.ProposeGuideChange(ctx, item, "carol", "say which order to use when there are several"); err != nil {
		t.Fatal(err)
	}
	if notes, _ := st.Notes(ctx, item); len(notes) != 2 || notes[1].Kind != NoteGuideProposal {
		t.Errorf("guide proposal: %+v", notes)
	}
	if err := st.SendBack(ctx, item, "carol", "again", nil, false); !errors.Is(err, ErrConflict) {
		t.Errorf("send back an agreed item without force: %v", err)
	}
}

func TestDisputedQueueAndDetail(t *testing.T) { onEngines(t, testDisputedQueueAndDetail) }

func testDisputedQueueAndDetail(t *testing.T, st *Store) {
	ctx := context.Background()
	item := disputedItem(t, st)
	q, err := st.DisputedQueue(ctx, DisputeFilter{Batch: "b1", Kind: review.KindArgs})
	if err != nil || len(q) != 1 {
		t.Fatalf("queue: %+v %v", q, err)
	}
	d := q[0]
	if d.Item != item || d.Batches[0] != "b1" || len(d.Reviewers) != 2 || len(d.Pairs) != 1 || d.Pairs[0].Args[0].Keys[0] != "order_id" || d.UpdatedAt == "" {
		t.Errorf("dispute: %+v", d)
	}
	for _, f := range []DisputeFilter{{Batch: "other"}, {Kind: review.KindTool}} {
		if q, _ := st.DisputedQueue(ctx, f); len(q) != 0 {
			t.Errorf("filter %+v: %+v", f, q)
		}
	}
	if _, err := st.Resolve(ctx, Resolution{Item: item, Lead: "carol", Reason: "r", Pick: "alice", Seen: d.UpdatedAt}); err != nil {
		t.Errorf("resolve with a fresh Seen: %v", err)
	}
	ls, err := st.ItemLabels(ctx, item)
	if err != nil || len(ls) != 2 {
		t.Errorf("item labels: %v %v", ls, err)
	}
}

func TestReviewAgreedHoldsAgreedItems(t *testing.T) { onEngines(t, testReviewAgreedHoldsAgreedItems) }

func testReviewAgreedHoldsAgreedItems(t *testing.T, st *Store) {
	ctx := context.Background()
	item := assignTwo(t, st)
	st.AddUser(ctx, "carol", RoleLead)
	if err := st.SetSetting(ctx, "alice", SettingReviewAgreed, "true"); !errors.Is(err, ErrForbidden) {
		t.Fatalf("reviewer changes settings: %v", err)
	}
	if err := st.SetSetting(ctx, "carol", SettingReviewAgreed, "yes"); err == nil {
		t.Fatal("setting accepts a non-bool")
	}
	if err := st.SetSetting(ctx, "carol", SettingReviewAgreed, "true"); err != nil {
		t.Fatal(err)
	}
	st.SubmitLabel(ctx, callLabel(item, "alice", `{"order_id":"ORD-1"}`))
	set, err := st.SubmitLabel(ctx, callLabel(item, "bob", `{"order_id":"ORD-1"}`))
	if err != nil || !set.Comparison.Agreed {
		t.Fatalf("%+v %v", set, err)
	}
	if s := itemStatus(t, st, item); s != "disputed" {
		t.Fatalf("held item status %s", s)
	}
	if _, err := st.GoldOf(ctx, item); !errors.Is(err, ErrNotFound) {
		t.Fatalf("held item has gold: %v", err)
	}
	if q, _ := st.DisputedQueue(ctx, DisputeFilter{Kind: review.KindReview}); len(q) != 1 {
		t.Fatalf("review queue: %+v", q)
	}
	g, err := st.Resolve(ctx, Resolution{Item: item, Lead: "carol", Reason: "looks right", Accept: true})
	if err != nil || g.Status != review.GoldAgreed || g.Adjudicator != "" {
		t.Fatalf("accept: %+v %v", g, err)
	}
	if s := itemStatus(t, st, item); s != "agreed" {
		t.Errorf("accepted item status %s", s)
	}
}

// Two leads with their own store handles on one file resolve the same item at
// once: exactly one wins, the other is told who did.
func TestConcurrentResolveOneWins(t *testing.T) { onEngines(t, testConcurrentResolveOneWins) }

func testConcurrentResolveOneWins(t *testing.T, st *Store) {
	ctx := context.Background()
	item := disputedItem(t, st)
	st.AddUser(ctx, "dave", RoleLead)
	other, err := Open(ctx, st.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, h := range []struct {
		st   *Store
		lead string
		pick string
	}{{st, "carol", "alice"}, {other, "dave", "bob"}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = h.st.Resolve(ctx, Resolution{Item: item, Lead: h.lead, Pick: h.pick, Reason: "mine"})
		}()
	}
	wg.Wait()
	wins, conflicts := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			wins++
		case errors.Is(err, ErrConflict) && strings.Contains(err.Error(), "already adjudicated by"):
			conflicts++
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	if wins != 1 || conflicts != 1 {
		t.Fatalf("wins %d conflicts %d: %v", wins, conflicts, errs)
	}
	var n int
	st.Reader().QueryRowContext(ctx, `SELECT count(*) FROM adjudications`).Scan(&n)
	if n != 1 {
		t.Errorf("adjudication rows: %d", n)
	}
}

// A rule given to agreed gold makes it adjudicated gold by the lead who
// gave it, and accepting agreed labels keeps agreed gold without an
// adjudicator: either way what is stored is what an export can carry.
func TestResolveRulesOnAgreedGold(t *testing.T) { onEngines(t, testResolveRulesOnAgreedGold) }

func testResolveRulesOnAgreedGold(t *testing.T, st *Store) {
	ctx := context.Background()
	item := assignTwo(t, st)
	if err := st.AddUser(ctx, "carol", RoleLead); err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{"alice", "bob"} {
		if _, err := st.SubmitLabel(ctx, callLabel(item, r, `{"order_id":"ORD-1"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if s := itemStatus(t, st, item); s != "agreed" {
		t.Fatalf("status %s", s)
	}
	g, err := st.Resolve(ctx, Resolution{Item: item, Lead: "carol", Reason: "ids vary in case",
		Rules: []review.ArgRuleSpec{{Arg: "order_id", Rule: gold.ArgRule{Match: gold.MatchFuzzy}}}})
	if err != nil {
		t.Fatal(err)
	}
	if g.Status != review.GoldAdjudicated || g.Adjudicator != "carol" {
		t.Errorf("gold after a rule: %+v", g)
	}
	if s := itemStatus(t, st, item); s != "adjudicated" {
		t.Errorf("item status %s", s)
	}
}
