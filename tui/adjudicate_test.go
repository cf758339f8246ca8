package tui

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/store"
)

func adjGold(t *testing.T, f adjFixture, item string) review.Gold {
	t.Helper()
	g, err := f.st.GoldOf(context.Background(), item)
	if err != nil {
		t.Fatalf("gold of %s: %v", item, err)
	}
	return g
}

func callsJSON(t *testing.T, calls []gold.ExpectedCall) string {
	t.Helper()
	b, err := json.Marshal(calls)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAdjudicatePickNeedsReasonThenWritesGold(t *testing.T) {
	f := newAdjFixture(t, 2)
	f.disputeArgs(t, f.items[0])
	f.disputeArgs(t, f.items[1])
	r, p := newAdjRoot(t, f, AdjudicateOptions{}, 80, 24)
	if v := adjView(r); !strings.Contains(v, "1/2") || !strings.Contains(v, f.items[0]) {
		t.Fatalf("first item not shown:\n%s", v)
	}

	adjKeys(r, "2", "enter")
	if !strings.Contains(adjView(r), "a reason is required") {
		t.Fatalf("empty reason accepted:\n%s", adjView(r))
	}
	if _, err := f.st.GoldOf(context.Background(), f.items[0]); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("gold written without a reason: %v", err)
	}

	adjKeys(r, "type:bob quoted the order", "enter")
	g := adjGold(t, f, f.items[0])
	if g.Status != review.GoldAdjudicated || g.Adjudicator != "carol" || g.Reason != "bob quoted the order" ||
		callsJSON(t, g.Calls) != `[{"tool":"get_order_status","args":{"order_id":"ord-20000 ","verbose":true}}]` {
		t.Errorf("gold %+v", g)
	}
	if got := r.Status().Text(); got != "resolved "+f.items[0]+" : picked bob" {
		t.Errorf("status %q", got)
	}
	if v := adjView(r); !strings.Contains(v, "1/1") || !strings.Contains(v, f.items[1]) || p.mode != adjBrowse {
		t.Errorf("next item not loaded (mode %v):\n%s", p.mode, v)
	}
	// Quitting says what the session did, as the label screen does.
	if rep, ok := p.Flush()().(FlushReportMsg); !ok || rep.Notice != "1 adjudicated, 1 dispute left" {
		t.Errorf("quit summary %#v", rep)
	}
}

func TestAdjudicateQIsTextInTheReason(t *testing.T) {
	f := newAdjFixture(t, 1)
	f.disputeArgs(t, f.items[0])
	r, p := newAdjRoot(t, f, AdjudicateOptions{}, 80, 24)
	adjKeys(r, "1", "type:q?")
	if p.reason.Value() != "q?" || r.View() == "" {
		t.Errorf("reason %q; q or ? left the text field", p.reason.Value())
	}
	adjKeys(r, "esc")
	if p.mode != adjBrowse {
		t.Errorf("esc did not close the form: mode %v", p.mode)
	}
}

func TestAdjudicateBothAcceptable(t *testing.T) {
	f := newAdjFixture(t, 1)
	f.disputeArgs(t, f.items[0])
	r, _ := newAdjRoot(t, f, AdjudicateOptions{}, 80, 24)
	adjKeys(r, "b")
	if !strings.Contains(adjView(r), "which label is primary") {
		t.Fatalf("no primary prompt:\n%s", adjView(r))
	}
	adjKeys(r, "2", "type:both readings are fine", "enter")
	g := adjGold(t, f, f.items[0])
	if callsJSON(t, g.Calls) != `[{"tool":"get_order_status","args":{"order_id":"ord-20000 ","verbose":true}}]` ||
		len(g.Acceptable) != 1 || callsJSON(t, g.Acceptable[0]) != `[{"tool":"get_order_status","args":{"order_id":"ORD-20000"}}]` {
		t.Errorf("gold calls %s acceptable %v", callsJSON(t, g.Calls), g.Acceptable)
	}
	if !strings.Contains(r.Status().Text(), "bob primary, alice acceptable") {
		t.Errorf("status %q", r.Status().Text())
	}
}

func TestAdjudicateArgRules(t *testing.T) {
	tests := []struct {
		name  string
		keys  []string
		label string // whose answer
		want  map[string]gold.ArgRule
	}{
		{"fuzzy", []string{"space"}, "1", map[string]gold.ArgRule{"order_id": {Match: gold.MatchFuzzy}}},
		{"any", []string{"space", "space"}, "1", map[string]gold.ArgRule{"order_id": {Match: gold.MatchAny}}},
		{"optional", []string{"left", "left"}, "1", map[string]gold.ArgRule{"order_id": {Optional: true}}},
		{"any_of takes bob's value", []string{"left"}, "1",
			map[string]gold.ArgRule{"order_id": {AnyOf: []json.RawMessage{json.RawMessage(`"ord-20000 "`)}}}},
		{"fuzzy skipped for a boolean", []string{"down", "space"}, "2",
			map[string]gold.ArgRule{"verbose": {Match: gold.MatchAny}}},
		{"any_of skipped without other values", []string{"down", "left"}, "2",
			map[string]gold.ArgRule{"verbose": {Optional: true}}},
		{"back to exact is no rule", []string{"space", "left"}, "1", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newAdjFixture(t, 1)
			f.disputeArgs(t, f.items[0])
			r, p := newAdjRoot(t, f, AdjudicateOptions{}, 80, 24)
			adjKeys(r, "r", tt.label)
			if p.mode != adjRules {
				t.Fatalf("rules form not open (mode %v):\n%s", p.mode, adjView(r))
			}
			adjKeys(r, tt.keys...)
			adjKeys(r, "enter", "type:ids differ only in case", "enter")
			g := adjGold(t, f, f.items[0])
			got := g.Calls[0].ArgRules
			gotJSON, _ := json.Marshal(got)
			wantJSON, _ := json.Marshal(tt.want)
			if string(gotJSON) != string(wantJSON) {
				t.Errorf("arg_rules %s, want %s", gotJSON, wantJSON)
			}
		})
	}
}

func TestAdjudicateRulesFromTheReasonPrompt(t *testing.T) {
	f := newAdjFixture(t, 1)
	f.disputeArgs(t, f.items[0])
	r, p := newAdjRoot(t, f, AdjudicateOptions{}, 80, 24)
	adjKeys(r, "1", "type:close enough", "ctrl+r", "space", "enter")
	if p.mode != adjReason || p.reason.Value() != "close enough" || !strings.Contains(adjView(r), "rules: order_id=fuzzy") {
		t.Fatalf("back at the reason with the rule? mode %v reason %q\n%s", p.mode, p.reason.Value(), adjView(r))
	}
	adjKeys(r, "enter")
	if rule := adjGold(t, f, f.items[0]).Calls[0].ArgRules["order_id"]; rule.Match != gold.MatchFuzzy {
		t.Errorf("rule %+v", rule)
	}
}

func TestAdjudicateMergedLabel(t *testing.T) {
	f := newAdjFixture(t, 1)
	f.disputeArgs(t, f.items[0])
	r, p := newAdjRoot(t, f, AdjudicateOptions{}, 120, 40)
	adjKeys(r, "e", "1")
	if p.mode != adjEdit || p.editor.Value() != "[\n  {\n    \"tool\": \"get_order_status\",\n    \"args\": {\n      \"order_id\": \"ORD-20000\"\n    }\n  }\n]" {
		t.Fatalf("editor not prefilled with alice's calls (mode %v):\n%s", p.mode, p.editor.Value())
	}
	tests := []struct {
		text, problem string
	}{
		{`[{"tool":"get_order_status","args":{"order_id":"ORD-20000"}`, "not valid JSON"},
		{`{"tool":"get_order_status"}`, "write a list of calls"},
		{`[{"tool":"cancel_order","args":{}}]`, "not one of the tools offered here"},
		{`[{"tool":"get_order_status","args":{}}]`, "order_id"},
		{`[{"tool":"get_order_status","args":{"order_id":7}}]`, "order_id"},
	}
	for _, tt := range tests {
		p.editor.SetValue(tt.text)
		adjKeys(r, "ctrl+s")
		if p.mode != adjEdit || !strings.Contains(adjView(r), tt.problem) {
			t.Errorf("%s: want a problem with %q, mode %v:\n%s", tt.text, tt.problem, p.mode, adjView(r))
		}
	}
	p.editor.SetValue(`[{"tool":"get_order_status","args":{"order_id":"ORD-20000","verbose":true}}]`)
	adjKeys(r, "ctrl+s", "type:alice's id, bob's detail", "enter")
	g := adjGold(t, f, f.items[0])
	if callsJSON(t, g.Calls) != `[{"tool":"get_order_status","args":{"order_id":"ORD-20000","verbose":true}}]` ||
		!strings.Contains(g.Rationale, "The user gave the order number.") {
		t.Errorf("gold %+v", g)
	}
}

func TestAdjudicateMergedNoCall(t *testing.T) {
	f := newAdjFixture(t, 1)
	f.disputeDecision(t, f.items[0])
	r, p := newAdjRoot(t, f, AdjudicateOptions{}, 80, 24)
	adjKeys(r, "e", "2")
	if p.editor.Value() != "[]" {
		t.Fatalf("bob's no-call label should start as [], got %q", p.editor.Value())
	}
	adjKeys(r, "ctrl+s", "type:ask first", "enter")
	if g := adjGold(t, f, f.items[0]); g.Decision != review.DecisionNoCall || len(g.Calls) != 0 {
		t.Errorf("gold %+v", g)
	}
}

func TestAdjudicateSendBack(t *testing.T) {
	f := newAdjFixture(t, 1)
	f.disputeArgs(t, f.items[0])
	r, p := newAdjRoot(t, f, AdjudicateOptions{}, 80, 24)
	adjKeys(r, "s", "enter")
	if !strings.Contains(adjView(r), "the note is empty") {
		t.Fatalf("empty note accepted:\n%s", adjView(r))
	}
	adjKeys(r, "type:check the order id format in the guide", "enter")
	ctx := context.Background()
	for _, rev := range []string{"alice", "bob"} {
		q, err := f.st.Queue(ctx, rev, "b1")
		if err != nil || len(q) != 1 || q[0].Status != "pending" {
			t.Errorf("%s's queue after send back: %+v %v", rev, q, err)
		}
	}
	notes, err := f.st.Notes(ctx, f.items[0])
	if err != nil || len(notes) != 1 || notes[0].Kind != store.NoteSendBack || notes[0].Body != "check the order id format in the guide" {
		t.Errorf("notes %+v %v", notes, err)
	}
	if v := adjView(r); !strings.Contains(v, "No disputed items") || !strings.Contains(r.Status().Text(), "sent "+f.items[0]+" back") || p.Typing() {
		t.Errorf("after send back: status %q\n%s", r.Status().Text(), v)
	}
	if rep, ok := p.Flush()().(FlushReportMsg); !ok || rep.Notice != "0 adjudicated, 1 sent back, 0 disputes left" {
		t.Errorf("quit summary %#v", rep)
	}
}

func TestAdjudicateGuideProposalKeepsTheItem(t *testing.T) {
	f := newAdjFixture(t, 1)
	f.disputeArgs(t, f.items[0])
	r, p := newAdjRoot(t, f, AdjudicateOptions{}, 80, 24)
	adjKeys(r, "g", "type:say that order ids are case-insensitive", "enter")
	notes, err := f.st.Notes(context.Background(), f.items[0])
	if err != nil || len(notes) != 1 || notes[0].Kind != store.NoteGuideProposal {
		t.Errorf("notes %+v %v", notes, err)
	}
	if p.mode != adjBrowse || !strings.Contains(adjView(r), "1/1") || !strings.Contains(r.Status().Text(), "guide proposal saved") ||
		!strings.Contains(adjView(r), "carol proposed a guide change: say that order ids are case-insensitive") {
		t.Errorf("mode %v status %q\n%s", p.mode, r.Status().Text(), adjView(r))
	}
}

func TestAdjudicateConflictReloads(t *testing.T) {
	f := newAdjFixture(t, 2)
	f.disputeArgs(t, f.items[0])
	f.disputeArgs(t, f.items[1])
	r, p := newAdjRoot(t, f, AdjudicateOptions{}, 80, 24)
	ctx := context.Background()
	if err := f.st.AddUser(ctx, "dave", store.RoleLead); err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.Resolve(ctx, store.Resolution{Item: f.items[0], Lead: "dave", Reason: "first", Pick: "alice"}); err != nil {
		t.Fatal(err)
	}
	adjKeys(r, "2", "type:mine", "enter")
	if !r.Status().IsError() || !strings.Contains(r.Status().Text(), "by dave") {
		t.Errorf("conflict not reported: %q", r.Status().Text())
	}
	if g := adjGold(t, f, f.items[0]); g.Adjudicator != "dave" {
		t.Errorf("the other lead's decision was overwritten: %+v", g)
	}
	if v := adjView(r); !strings.Contains(v, "1/1") || !strings.Contains(v, f.items[1]) || p.mode != adjBrowse {
		t.Errorf("queue not reloaded:\n%s", v)
	}
}

func TestAdjudicateKindFilterAndNavigation(t *testing.T) {
	f := newAdjFixture(t, 3)
	f.disputeArgs(t, f.items[0])
	f.disputeDecision(t, f.items[1])
	f.disputeArgs(t, f.items[2])
	r, p := newAdjRoot(t, f, AdjudicateOptions{}, 80, 24)
	adjKeys(r, "right", "right", "right")
	if !strings.Contains(adjView(r), "3/3") || !strings.Contains(adjView(r), f.items[2]) {
		t.Errorf("→ should stop at the last item:\n%s", adjView(r))
	}
	adjKeys(r, "left")
	if !strings.Contains(adjView(r), "2/3") {
		t.Errorf("← should go back:\n%s", adjView(r))
	}
	adjKeys(r, "f")
	if v := adjView(r); p.kind != review.KindDecision || !strings.Contains(v, "1/1") || !strings.Contains(v, f.items[1]) || !strings.Contains(v, "filter: decision") {
		t.Errorf("kind filter decision:\n%s", v)
	}
	adjKeys(r, "f")
	if v := adjView(r); !strings.Contains(v, "No disputed items of kind tool") || !strings.Contains(v, "3 disputed items of other kinds") {
		t.Errorf("empty filtered queue:\n%s", v)
	}
	// Stale answers (older loads) are dropped.
	_, cmd := p.Update(adjDetailMsg{seq: p.seq - 1, itemID: f.items[0], err: errors.New("stale")})
	drain(r, cmd)
	_, cmd = p.Update(adjQueueMsg{seq: p.seq - 1, err: errors.New("stale")})
	drain(r, cmd)
	if r.Status().IsError() || !strings.Contains(adjView(r), "No disputed items of kind tool") {
		t.Errorf("stale answer shown: %q\n%s", r.Status().Text(), adjView(r))
	}
}

func TestAdjudicateStartFilters(t *testing.T) {
	f := newAdjFixture(t, 2)
	f.disputeArgs(t, f.items[0])
	f.disputeDecision(t, f.items[1])
	tests := []struct {
		opts AdjudicateOptions
		want string
	}{
		{AdjudicateOptions{Kind: review.KindDecision}, f.items[1]},
		{AdjudicateOptions{Kind: review.KindArgs, Batch: "b1"}, f.items[0]},
		{AdjudicateOptions{Batch: "b9"}, "No disputed items in batch b9"},
	}
	for _, tt := range tests {
		r, _ := newAdjRoot(t, f, tt.opts, 80, 24)
		if v := adjView(r); !strings.Contains(v, tt.want) {
			t.Errorf("%+v: want %q in\n%s", tt.opts, tt.want, v)
		}
	}
}

func TestAdjudicateEmptyQueueSaysWhatIsGoingOn(t *testing.T) {
	f := newAdjFixture(t, 3)
	f.submit(t, f.items[0], "alice", "", "no")
	f.submit(t, f.items[0], "bob", "", "no") // agreed: gold
	f.submit(t, f.items[1], "alice", "", "no")
	r, _ := newAdjRoot(t, f, AdjudicateOptions{}, 80, 24)
	if v := adjView(r); !strings.Contains(v, "No disputed items — 1 item gold, 2 still labeling") {
		t.Errorf("empty queue:\n%s", v)
	}
}

func TestAdjudicateMoreThanTwoLabels(t *testing.T) {
	f := newAdjFixture(t, 1)
	ctx := context.Background()
	if err := f.st.AddUser(ctx, "dan", store.RoleReviewer); err != nil {
		t.Fatal(err)
	}
	err := f.st.WithTx(ctx, func(tx *store.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO assignments(item_id, reviewer, batch, position, updated_at) VALUES (?, 'dan', 'b1', 0, 'now')`, f.items[0])
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	f.submit(t, f.items[0], "alice", `[{"tool":"get_order_status","args":{"order_id":"ORD-20000"}}]`, "a")
	f.submit(t, f.items[0], "bob", `[{"tool":"get_order_status","args":{"order_id":"ORD-20000"}}]`, "b")
	f.submit(t, f.items[0], "dan", `[{"tool":"search_faq","args":{"query":"late"}}]`, "d")
	r, p := newAdjRoot(t, f, AdjudicateOptions{}, 120, 40)
	all, starts := renderLabels(&p.c.Styles, p.detail.labels, 120)
	all = ansi.Strip(all)
	if len(p.detail.labels) != 3 || !strings.Contains(all, "[3] dan") || !strings.Contains(adjView(r), "3 labels") {
		t.Fatalf("three labels expected:\n%s", all)
	}
	if lines := strings.Split(all, "\n"); len(starts) != 3 || starts[0] != 0 || starts[1] != 0 || !strings.HasPrefix(lines[starts[2]], "[3] dan") {
		t.Errorf("label starts %v", starts)
	}
	adjKeys(r, "b", "3")
	if !strings.Contains(adjView(r), "dan is primary; which one is also acceptable") {
		t.Fatalf("second choice prompt missing:\n%s", adjView(r))
	}
	adjKeys(r, "3")
	if !strings.Contains(adjView(r), "already the primary") {
		t.Errorf("same label twice accepted:\n%s", adjView(r))
	}
	adjKeys(r, "1", "type:faq or status both fine", "enter")
	g := adjGold(t, f, f.items[0])
	if g.Calls[0].Tool != "search_faq" || len(g.Acceptable) != 1 || g.Acceptable[0][0].Tool != "get_order_status" {
		t.Errorf("gold %+v", g)
	}
}

func TestAdjudicateAcceptHeldForReview(t *testing.T) {
	f := newAdjFixture(t, 2)
	ctx := context.Background()
	if err := f.st.SetSetting(ctx, "carol", store.SettingReviewAgreed, "true"); err != nil {
		t.Fatal(err)
	}
	f.disputeArgs(t, f.items[0])
	for _, who := range []string{"alice", "bob"} {
		f.submit(t, f.items[1], who, `[{"tool":"search_faq","args":{"query":"late orders"}}]`, who+" agrees")
	}
	r, _ := newAdjRoot(t, f, AdjudicateOptions{}, 80, 24)
	adjKeys(r, "a")
	if !r.Status().IsError() || !strings.Contains(r.Status().Text(), "disagree") {
		t.Errorf("accept on a real dispute: %q", r.Status().Text())
	}
	adjKeys(r, "esc", "right")
	if v := adjView(r); !strings.Contains(v, "labels agree, held for review") || !strings.Contains(v, "a accept") {
		t.Fatalf("held item:\n%s", v)
	}
	adjKeys(r, "a", "type:looks right", "enter")
	g := adjGold(t, f, f.items[1])
	if g.Status != review.GoldAgreed || g.Adjudicator != "" || callsJSON(t, g.Calls) != `[{"tool":"search_faq","args":{"query":"late orders"}}]` {
		t.Errorf("gold %+v", g)
	}
	if !strings.Contains(r.Status().Text(), "accepted the agreeing labels") {
		t.Errorf("status %q", r.Status().Text())
	}
}

func TestAdjudicateLongReasonStaysOnScreen(t *testing.T) {
	f := newAdjFixture(t, 1)
	f.disputeArgs(t, f.items[0])
	r, p := newAdjRoot(t, f, AdjudicateOptions{}, 80, 24)
	long := strings.Repeat("the order id in the message is the one to use ", 4) + "END"
	adjKeys(r, "1", "type:"+long)
	if p.reason.Value() != long || !strings.Contains(adjView(r), "END") {
		t.Errorf("the end of a long reason is not in view:\n%s", adjView(r))
	}
}

func TestAdjudicateShowsEarlierNotes(t *testing.T) {
	f := newAdjFixture(t, 1)
	f.disputeArgs(t, f.items[0])
	ctx := context.Background()
	if err := f.st.SendBack(ctx, f.items[0], "carol", "use the id from the first message", nil, false); err != nil {
		t.Fatal(err)
	}
	f.disputeArgs(t, f.items[0]) // they disagree again
	r, _ := newAdjRoot(t, f, AdjudicateOptions{}, 120, 40)
	if v := adjView(r); !strings.Contains(v, "carol sent it back to alice, bob: use the id from the first message") {
		t.Errorf("earlier send-back not shown:\n%s", v)
	}
}
