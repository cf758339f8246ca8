package tui

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/goldtrace/goldtrace/guide"
	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/store"
)

// keys counts keystrokes sent by the helpers below.
type keys struct {
	r *Root
	n int
}

func (k *keys) typ(s string) {
	for _, ch := range s {
		k.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{ch}})
	}
}

func (k *keys) press(t tea.KeyType) { k.send(tea.KeyMsg{Type: t}) }

func (k *keys) send(msg tea.KeyMsg) {
	k.n++
	_, cmd := k.r.Update(msg)
	drain(k.r, cmd)
}

func view(r *Root) string { return ansi.Strip(r.View()) }

func storedLabel(t *testing.T, f labelFixture, item, reviewer string) review.Label {
	t.Helper()
	l, err := f.st.Label(context.Background(), item, reviewer)
	if err != nil {
		t.Fatalf("label of %s by %s: %v", item, reviewer, err)
	}
	return l
}

func TestCommonLabelPath(t *testing.T) {
	f := newLabelFixture(t, 3, "alice")
	r, page, clk := newTestLabelRoot(t, f, "alice", 80, 24)
	k := &keys{r: r}
	if page.item.ID != f.items[0] || page.form.focus != fieldTool {
		t.Fatalf("first item %s focus %v", page.item.ID, page.form.focus)
	}
	k.typ("stat")
	k.press(tea.KeyEnter)
	ce := page.form.calls[0]
	if ce.tool != "get_order_status" || page.form.focus != fieldArgs {
		t.Fatalf("after choosing: tool %q focus %v", ce.tool, page.form.focus)
	}
	if got := ansi.Strip(page.problemLine(ce)); !strings.Contains(got, "order_id is required") {
		t.Errorf("problem line %q", got)
	}
	k.typ("ORD-10000")
	if len(ce.problems) != 0 {
		t.Fatalf("problems after typing into the form: %v (args %q)", ce.problems, ce.value())
	}
	k.press(tea.KeyTab)
	if page.form.focus != fieldRationale {
		t.Fatalf("tab from complete args should reach the rationale, focus %v", page.form.focus)
	}
	k.typ("User names one order.")
	clk.now = t0.Add(41 * time.Second)
	k.press(tea.KeyCtrlS)
	t.Logf("common label: %d keystrokes (4 filter + enter + 9 value + tab + 21 rationale + ctrl+s)", k.n)
	l := storedLabel(t, f, f.items[0], "alice")
	if l.Decision != review.DecisionCall || len(l.Calls) != 1 || string(l.Calls[0].Args) != `{"order_id":"ORD-10000"}` ||
		l.Rationale != "User names one order." || l.Seconds != 41 || l.SawObserved || l.GuideVersion != guide.ID(guide.Default()) {
		t.Errorf("stored %+v", l)
	}
	if page.item.ID != f.items[1] || !strings.Contains(view(r), "2/3") {
		t.Errorf("after submit: item %s, view:\n%s", page.item.ID, view(r))
	}
	if !strings.Contains(r.Status().Text(), "submitted "+f.items[0]) {
		t.Errorf("status %q", r.Status().Text())
	}
}

func TestSubmitRefusesWhatCannotBeRight(t *testing.T) {
	tests := []struct {
		name  string
		steps func(k *keys)
		want  string
	}{
		{"no tool chosen", func(k *keys) {}, "not submitted: choose a tool, or (no tool)"},
		{"enum left empty", func(k *keys) {
			k.typ("ship")
			k.press(tea.KeyEnter)
		}, "not submitted: carrier is required"},
		{"invalid JSON", func(k *keys) {
			k.typ("faq")
			k.press(tea.KeyEnter)
			k.press(tea.KeyCtrlT) // the arguments as JSON text
			k.typ(`"x`)
		}, "not submitted: not valid JSON"},
		{"no rationale", func(k *keys) {
			k.typ("(no")
			k.press(tea.KeyEnter)
		}, "not submitted: write a rationale"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newLabelFixture(t, 1, "alice")
			r, page, _ := newTestLabelRoot(t, f, "alice", 80, 24)
			k := &keys{r: r}
			tt.steps(k)
			k.press(tea.KeyCtrlS)
			if !r.Status().IsError() || !strings.Contains(r.Status().Text(), tt.want) {
				t.Errorf("status %q, want %q", r.Status().Text(), tt.want)
			}
			if _, err := f.st.Label(context.Background(), f.items[0], "alice"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("a refused label was stored: %v", err)
			}
			if page.state != stateReady {
				t.Errorf("state %v", page.state)
			}
		})
	}
}

func TestNoToolAndSequence(t *testing.T) {
	f := newLabelFixture(t, 2, "alice")
	r, page, _ := newTestLabelRoot(t, f, "alice", 80, 24)
	k := &keys{r: r}
	k.typ("no tool")
	k.press(tea.KeyEnter)
	if !page.form.noTool || page.form.focus != fieldRationale {
		t.Fatalf("no tool: %v focus %v", page.form.noTool, page.form.focus)
	}
	k.typ("ask first")
	k.press(tea.KeyCtrlS)
	if l := storedLabel(t, f, f.items[0], "alice"); l.Decision != review.DecisionNoCall || len(l.Calls) != 0 {
		t.Errorf("no-tool label %+v", l)
	}
	// Second item: two calls, reordered.
	k.typ("stat")
	k.press(tea.KeyEnter)
	k.typ("ORD-10001")
	k.press(tea.KeyCtrlA)
	if len(page.form.calls) != 2 || page.form.cur != 1 || page.form.focus != fieldTool {
		t.Fatalf("add call: %d calls, cur %d, focus %v", len(page.form.calls), page.form.cur, page.form.focus)
	}
	if page.form.picker.names[0] == noToolChoice {
		t.Error("(no tool) offered inside a sequence")
	}
	k.typ("faq")
	k.press(tea.KeyEnter)
	k.typ("late orders")
	k.send(tea.KeyMsg{Type: tea.KeyUp, Alt: true})
	if page.form.cur != 0 || page.form.calls[0].tool != "search_faq" {
		t.Fatalf("move up: cur %d first %s", page.form.cur, page.form.calls[0].tool)
	}
	if !strings.Contains(view(r), "call 1 of 2") || !strings.Contains(view(r), "2. get_order_status") {
		t.Errorf("sequence view:\n%s", view(r))
	}
	k.press(tea.KeyTab) // leaves args (no empty value left)
	k.press(tea.KeyTab)
	k.press(tea.KeyTab)
	if page.form.focus != fieldRationale {
		t.Fatalf("tab order: cur %d focus %v", page.form.cur, page.form.focus)
	}
	k.typ("faq then status")
	k.press(tea.KeyCtrlS)
	l := storedLabel(t, f, f.items[1], "alice")
	if len(l.Calls) != 2 || l.Calls[0].Tool != "search_faq" || string(l.Calls[0].Args) != `{"query":"late orders"}` || l.Calls[1].Tool != "get_order_status" {
		t.Errorf("sequence label %+v", l)
	}
}

func TestRemoveCallKeepsOne(t *testing.T) {
	f := newLabelFixture(t, 1, "alice")
	r, page, _ := newTestLabelRoot(t, f, "alice", 80, 24)
	k := &keys{r: r}
	k.press(tea.KeyCtrlD)
	if len(page.form.calls) != 1 {
		t.Fatal("removed the only call")
	}
	if strings.Contains(view(r), "remove call") {
		t.Error("help offers a disabled key")
	}
	k.press(tea.KeyCtrlA)
	k.press(tea.KeyCtrlD)
	if len(page.form.calls) != 1 {
		t.Errorf("calls after add+remove: %d", len(page.form.calls))
	}
}

func TestBlindAndReveal(t *testing.T) {
	f := newLabelFixture(t, 1, "alice", "bob")
	ctx := context.Background()
	if _, err := f.st.SubmitLabel(ctx, review.Label{Item: f.items[0], Reviewer: "bob", Decision: review.DecisionNoCall, Rationale: "BOB-SECRET"}); err != nil {
		t.Fatal(err)
	}
	r, page, _ := newTestLabelRoot(t, f, "alice", 120, 40)
	k := &keys{r: r}
	for _, v := range []string{view(r)} {
		if strings.Contains(v, "BOB-SECRET") || strings.Contains(v, "[model did]") {
			t.Fatalf("alice sees bob's label or the model's call:\n%s", v)
		}
	}
	k.press(tea.KeyCtrlO)
	v := view(r)
	if !strings.Contains(v, "[model did] → get_order_status") || !strings.Contains(v, "\n    order_id  ORD-10000") || strings.Contains(v, "BOB-SECRET") {
		t.Fatalf("after ctrl+o:\n%s", v)
	}
	// A second ctrl+o copies the model's call into the form, to edit only
	// what is wrong; it is right here, so the focus goes to the rationale.
	k.press(tea.KeyCtrlO)
	if ce := page.form.calls[0]; ce.tool != "get_order_status" || !ce.useForm || !sameJSON(t, ce.value(), `{"order_id":"ORD-10000"}`) || page.form.focus != fieldRationale {
		t.Fatalf("copy: tool %q form %v value %s focus %v", ce.tool, ce.useForm, ce.value(), page.form.focus)
	}
	k.typ("copied")
	k.press(tea.KeyCtrlS)
	if l := storedLabel(t, f, f.items[0], "alice"); !l.SawObserved {
		t.Error("saw_observed not recorded")
	}
	if page.state != stateEmpty {
		t.Errorf("state after the last item: %v", page.state)
	}
}

func TestDraftAutosavesAndResumes(t *testing.T) {
	f := newLabelFixture(t, 2, "alice")
	r, page, clk := newTestLabelRoot(t, f, "alice", 80, 24)
	k := &keys{r: r}
	k.typ("ship")
	k.press(tea.KeyEnter)
	k.typ("ORD-1")
	if !page.dirty || page.saveQueued != f.items[0] {
		t.Fatal("an edit did not schedule an autosave")
	}
	clk.now = t0.Add(7 * time.Second)
	_, cmd := r.Update(autosaveMsg{ItemID: f.items[0]})
	drain(r, cmd)
	body, secs, err := f.st.Draft(context.Background(), f.items[0], "alice")
	if err != nil || secs != 7 || !strings.Contains(string(body), `"tool":"create_shipment"`) {
		t.Fatalf("draft %s %d %v", body, secs, err)
	}
	// A stale autosave for another item is ignored.
	_, cmd = r.Update(autosaveMsg{ItemID: "it_other"})
	if cmd != nil {
		t.Error("stale autosave produced a command")
	}
	k.press(tea.KeyTab) // to carrier
	k.typ("ups")
	clk.now = t0.Add(9 * time.Second)
	k.press(tea.KeyCtrlC) // quitting saves first
	body, secs, _ = f.st.Draft(context.Background(), f.items[0], "alice")
	if secs != 9 || !strings.Contains(string(body), `\"carrier\": \"ups\"`) {
		t.Fatalf("quit did not save the draft: %s %d", body, secs)
	}
	// Restart: the draft comes back, time keeps counting from it.
	r2, page2, clk2 := newTestLabelRoot(t, f, "alice", 80, 24)
	if page2.item.ID != f.items[0] || page2.form.calls[0].tool != "create_shipment" || !strings.Contains(page2.form.calls[0].args.Value(), `"ups"`) {
		t.Fatalf("resumed %s %q", page2.item.ID, page2.form.calls[0].args.Value())
	}
	clk2.now = t0.Add(5 * time.Second)
	k2 := &keys{r: r2}
	k2.typ("resumed")
	k2.press(tea.KeyCtrlS)
	if l := storedLabel(t, f, f.items[0], "alice"); l.Seconds != 14 || string(l.Calls[0].Args) != `{"carrier":"ups","order_id":"ORD-1"}` {
		t.Errorf("resumed label %+v %s", l, l.Calls[0].Args)
	}
}

func TestSkipNeedsReason(t *testing.T) {
	f := newLabelFixture(t, 2, "alice")
	r, page, _ := newTestLabelRoot(t, f, "alice", 80, 24)
	k := &keys{r: r}
	k.press(tea.KeyCtrlN)
	if !page.skipping || !strings.Contains(view(r), "Why skip?") {
		t.Fatal("ctrl+n did not ask for a reason")
	}
	k.press(tea.KeyEnter)
	if !strings.Contains(r.Status().Text(), "a skip needs a reason") {
		t.Errorf("status %q", r.Status().Text())
	}
	k.press(tea.KeyEsc)
	if page.skipping {
		t.Fatal("esc did not cancel the skip")
	}
	k.press(tea.KeyCtrlN)
	k.typ("context cut off")
	k.press(tea.KeyEnter)
	q, _ := f.st.Progress(context.Background(), "alice", "")
	if q[store.AssignSkipped] != 1 || page.item.ID != f.items[1] {
		t.Errorf("progress %v, item %s", q, page.item.ID)
	}
}

func TestReopenPreviousAndRefusal(t *testing.T) {
	f := newLabelFixture(t, 2, "alice", "bob")
	r, page, _ := newTestLabelRoot(t, f, "alice", 80, 24)
	k := &keys{r: r}
	k.typ("no tool")
	k.press(tea.KeyEnter)
	k.typ("first thoughts")
	k.press(tea.KeyCtrlS)
	k.typ("stat") // some unsaved work on item 2
	k.press(tea.KeyEnter)
	k.press(tea.KeyCtrlZ)
	if page.item.ID != f.items[0] || !page.form.noTool || page.form.rationale.Value() != "first thoughts" {
		t.Fatalf("reopened %s noTool %v rationale %q", page.item.ID, page.form.noTool, page.form.rationale.Value())
	}
	if _, _, err := f.st.Draft(context.Background(), f.items[1], "alice"); err != nil {
		t.Errorf("work on the current item was not saved before reopening: %v", err)
	}
	k.typ(", revised")
	k.press(tea.KeyCtrlS)
	if l := storedLabel(t, f, f.items[0], "alice"); l.Rationale != "first thoughts, revised" {
		t.Errorf("revised %q", l.Rationale)
	}
	if page.item.ID != f.items[1] || page.form.calls[0].tool != "get_order_status" {
		t.Errorf("back to the draft: %s %q", page.item.ID, page.form.calls[0].tool)
	}
	// An adjudicated item cannot be reopened: the store's refusal is shown,
	// the same as for an agreed or disputed one (nothing tells which).
	if _, err := f.st.Reader().ExecContext(context.Background(), `UPDATE items SET status = 'adjudicated' WHERE id = ?`, f.items[0]); err == nil {
		t.Fatal("reader pool accepted a write")
	}
	if err := f.st.WithTx(context.Background(), func(tx *store.Tx) error {
		_, err := tx.ExecContext(context.Background(), `UPDATE items SET status = 'adjudicated' WHERE id = ?`, f.items[0])
		return err
	}); err != nil {
		t.Fatal(err)
	}
	k.press(tea.KeyCtrlZ)
	if !r.Status().IsError() || !strings.Contains(r.Status().Text(), "has been compared") || page.item.ID != f.items[1] || page.state != stateReady {
		t.Errorf("refusal: %q item %s state %v", r.Status().Text(), page.item.ID, page.state)
	}
}

func TestStaleLoadIsDropped(t *testing.T) {
	f := newLabelFixture(t, 2, "alice")
	r, page, _ := newTestLabelRoot(t, f, "alice", 80, 24)
	r.Update(itemLoadedMsg{seq: page.loadSeq - 1, Empty: true})
	if page.state != stateReady || page.item.ID != f.items[0] {
		t.Errorf("a stale load replaced the item: %v %s", page.state, page.item.ID)
	}
}

func TestEmptyQueue(t *testing.T) {
	f := newLabelFixture(t, 1, "alice")
	if err := f.st.AddUser(context.Background(), "dave", store.RoleReviewer); err != nil {
		t.Fatal(err)
	}
	r, page, _ := newTestLabelRoot(t, f, "dave", 80, 24)
	if page.state != stateEmpty || !strings.Contains(view(r), "Nothing to label, dave.") || !strings.Contains(view(r), "goldtrace sample --reviewers dave") {
		t.Fatalf("empty queue view:\n%s", view(r))
	}
	k := &keys{r: r}
	k.press(tea.KeyCtrlZ)
	if !strings.Contains(r.Status().Text(), "nothing to reopen") || page.state != stateEmpty {
		t.Errorf("reopen on empty: %q %v", r.Status().Text(), page.state)
	}
}

func TestGuideOpensAtToolSection(t *testing.T) {
	f := newLabelFixture(t, 1, "alice")
	body := guide.Default() + "\n## get_order_status\n\nUse when the user names exactly one order.\n"
	if _, _, err := f.st.SetGuide(context.Background(), guide.ID(body), body, "carol"); err != nil {
		t.Fatal(err)
	}
	r, page, _ := newTestLabelRoot(t, f, "alice", 80, 24)
	k := &keys{r: r}
	k.typ("stat")
	k.press(tea.KeyEnter)
	k.press(tea.KeyCtrlG)
	if r.Current() != PageGuide || !strings.Contains(view(r), "Use when the user names exactly one order.") {
		t.Fatalf("guide:\n%s", view(r))
	}
	k.press(tea.KeyEsc)
	if r.Current() != PageLabel || page.form.calls[0].tool != "get_order_status" {
		t.Errorf("back: %v", r.Current())
	}
	k.typ("ORD-10000")
	k.press(tea.KeyTab)
	k.typ("by the guide")
	k.press(tea.KeyCtrlS)
	if l := storedLabel(t, f, f.items[0], "alice"); l.GuideVersion != guide.ID(body) {
		t.Errorf("guide version %s, want %s", l.GuideVersion, guide.ID(body))
	}
}

func TestLayoutFitsAndReflows(t *testing.T) {
	f := newLabelFixture(t, 1, "alice")
	r, _, _ := newTestLabelRoot(t, f, "alice", 80, 24)
	for _, size := range [][2]int{{80, 24}, {120, 40}, {60, 20}, {200, 60}} {
		r.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		lines := strings.Split(r.View(), "\n")
		if len(lines) != size[1] {
			t.Errorf("%dx%d: %d lines", size[0], size[1], len(lines))
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w > size[0] {
				t.Errorf("%dx%d: line %d is %d wide: %q", size[0], size[1], i, w, ansi.Strip(l))
			}
		}
	}
}

// TestCommonLabelKeystrokes counts the keys of the common label: pick a tool
// by filtering, fill two text arguments from the skeleton, a one-line
// rationale, submit. Everything beyond the typed content is overhead.
func TestCommonLabelKeystrokes(t *testing.T) {
	f := newLabelFixture(t, 2, "alice")
	r, _, _ := newTestLabelRoot(t, f, "alice", 80, 24)
	k := &keys{r: r}
	const filter, order, carrier, why = "ship", "ORD-10000", "ups", "Customer asked to ship by UPS."
	k.typ(filter)
	k.press(tea.KeyEnter) // choose: the focus lands on order_id
	k.typ(order)
	k.press(tea.KeyEnter) // to carrier (a choice: typing narrows it)
	k.typ(carrier)
	k.press(tea.KeyEnter) // no required field left (express is optional): to the rationale
	k.typ(why)
	k.press(tea.KeyCtrlS)
	l := storedLabel(t, f, f.items[0], "alice")
	if string(l.Calls[0].Args) != `{"carrier":"ups","order_id":"ORD-10000"}` || l.Rationale != why {
		t.Fatalf("stored %+v %s", l, l.Calls[0].Args)
	}
	content := len(order) + len(carrier) + len(why)
	overhead := k.n - content
	t.Logf("common label: %d keystrokes = %d typed content + %d overhead (%d filter letters, enter, enter, enter, ctrl+s)",
		k.n, content, overhead, len(filter))
	if overhead != len(filter)+4 {
		t.Errorf("overhead %d keystrokes, want %d", overhead, len(filter)+4)
	}
}

func TestToolListKeepsTheCursorVisible(t *testing.T) {
	s := StylesFor(true)
	p := newToolPicker(&s)
	p.SetTools(fixtureTools, true) // 4 choices
	for i := 0; i < 3; i++ {
		p.Update(tea.KeyMsg{Type: tea.KeyDown})
	}
	out := ansi.Strip(p.ListView(60, 3))
	if !strings.Contains(out, "▸ search_faq") || !strings.Contains(out, "↑ 2 more") {
		t.Errorf("cursor on the last choice:\n%s", out)
	}
	if n := strings.Count(out, "\n") + 1; n != 3 {
		t.Errorf("%d lines", n)
	}
}

// An autosave that lands after its item was submitted is refused by the
// store; that is not the reviewer's problem and is not shown.
func TestLateAutosaveAfterSubmitIsQuiet(t *testing.T) {
	f := newLabelFixture(t, 2, "alice")
	r, page, _ := newTestLabelRoot(t, f, "alice", 80, 24)
	k := &keys{r: r}
	k.typ("no tool")
	k.press(tea.KeyEnter)
	k.typ("done")
	late := page.req.saveDraftCmd(f.items[0], page.form.Draft(false), 3)
	k.press(tea.KeyCtrlS)
	_, cmd := r.Update(late())
	drain(r, cmd)
	if r.Status().IsError() {
		t.Errorf("status shows %q", r.Status().Text())
	}
	if _, _, err := f.st.Draft(context.Background(), f.items[0], "alice"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a draft outlived its submitted label: %v", err)
	}
}

func TestSentBackItemShowsTheLeadsNote(t *testing.T) {
	f := newLabelFixture(t, 1, "alice", "bob")
	ctx := context.Background()
	if err := f.st.AddUser(ctx, "carol", store.RoleLead); err != nil {
		t.Fatal(err)
	}
	for _, l := range []review.Label{
		{Item: f.items[0], Reviewer: "alice", Decision: review.DecisionNoCall, Rationale: "ALICE-FIRST"},
		{Item: f.items[0], Reviewer: "bob", Decision: review.DecisionNoCall, Rationale: "b", Calls: nil},
	} {
		if l.Reviewer == "bob" {
			l.Decision = review.DecisionCall
			l.Calls = []review.LabelCall{{Tool: "search_faq", Args: []byte(`{"query":"x"}`)}}
		}
		if _, err := f.st.SubmitLabel(ctx, l); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.st.SendBack(ctx, f.items[0], "carol", "The user gave an order id: look at it again.", []string{"alice"}, false); err != nil {
		t.Fatal(err)
	}
	r, page, _ := newTestLabelRoot(t, f, "alice", 80, 24)
	v := view(r)
	if page.item.ID != f.items[0] || !strings.Contains(v, "[sent back by carol] The user gave an order id") {
		t.Fatalf("sent-back item:\n%s", v)
	}
	if strings.Contains(v, "search_faq({\"query\":\"x\"})") || strings.Contains(v, "ALICE-FIRST") {
		t.Errorf("the screen shows a removed label:\n%s", v)
	}
}

func TestIdleTimeIsCapped(t *testing.T) {
	f := newLabelFixture(t, 1, "alice")
	r, _, clk := newTestLabelRoot(t, f, "alice", 80, 24)
	k := &keys{r: r}
	k.typ("no tool")
	clk.now = t0.Add(30 * time.Second)
	k.press(tea.KeyEnter)
	clk.now = t0.Add(30*time.Second + time.Hour) // away for an hour
	k.typ("x")
	clk.now = clk.now.Add(10 * time.Second)
	k.press(tea.KeyCtrlS)
	if l := storedLabel(t, f, f.items[0], "alice"); l.Seconds != 30+5*60+10 {
		t.Errorf("seconds %d, want 30 + 300 (capped pause) + 10", l.Seconds)
	}
}

// Keys typed while the next item loads apply to it instead of being lost.
func TestTypingAheadWhileLoading(t *testing.T) {
	f := newLabelFixture(t, 2, "alice")
	r, page, _ := newTestLabelRoot(t, f, "alice", 80, 24)
	k := &keys{r: r}
	k.typ("no tool")
	k.press(tea.KeyEnter)
	k.typ("first")
	// Submit without running the commands yet: the program is busy.
	_, submit := r.Update(tea.KeyMsg{Type: tea.KeyCtrlS})
	for _, ch := range "stat" {
		r.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{ch}})
	}
	r.Update(tea.KeyMsg{Type: tea.KeyEnter})
	drain(r, submit)
	if page.item.ID != f.items[1] || page.form.calls[0].tool != "get_order_status" || page.form.focus != fieldArgs {
		t.Errorf("typed-ahead keys not applied: item %s tool %q focus %v", page.item.ID, page.form.calls[0].tool, page.form.focus)
	}
}

func TestGuideSectionStartsAtTheTop(t *testing.T) {
	f := newLabelFixture(t, 1, "alice")
	body := guide.Default() + "\n## get_order_status\n\nUse when the user names exactly one order.\n"
	if _, _, err := f.st.SetGuide(context.Background(), guide.ID(body), body, "carol"); err != nil {
		t.Fatal(err)
	}
	r, _, _ := newTestLabelRoot(t, f, "alice", 120, 40)
	k := &keys{r: r}
	k.typ("stat")
	k.press(tea.KeyEnter)
	k.press(tea.KeyCtrlG)
	lines := strings.Split(view(r), "\n")
	if !strings.Contains(lines[1], "get_order_status") {
		t.Errorf("the section heading is not the first guide line:\n%s", strings.Join(lines[:5], "\n"))
	}
}

func TestHintLineForTheDemo(t *testing.T) {
	f := newLabelFixture(t, 1, "alice")
	c := &Common{Styles: StylesFor(true), Keys: DefaultKeyMap(), API: as(t, f.st, "alice"), Now: func() time.Time { return t0 }}
	hint := "demo: you are alice; `goldtrace label --as bob --db /tmp/x.db` to be the second reviewer"
	r := NewLabelRoot(c, LabelOptions{Reviewer: "alice", Hint: hint}, true)
	r.Page(PageLabel).(*LabelPage).after = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	r.Update(tea.WindowSizeMsg{Width: 100, Height: 24})
	drain(r, r.Init())
	lines := strings.Split(view(r), "\n")
	if !strings.Contains(lines[1], hint) || len(lines) != 24 {
		t.Errorf("hint line:\n%s", view(r))
	}
}

// Quitting tells the reviewer where they are: "N submitted, M left in
// BATCH, K drafts saved" (printed by the command once the screen is gone).
func TestQuitSummary(t *testing.T) {
	f := newLabelFixture(t, 3, "alice")
	r, page, _ := newTestLabelRoot(t, f, "alice", 80, 24)
	k := &keys{r: r}
	k.typ("no tool")
	k.press(tea.KeyEnter)
	k.typ("just answer")
	k.press(tea.KeyCtrlS)
	k.typ("stat") // the second item: a draft when quitting
	k.press(tea.KeyEnter)
	msg := page.Flush()()
	rep, ok := msg.(FlushReportMsg)
	if !ok || rep.Err != nil || rep.Notice != "1 submitted, 2 left in your queue, 1 draft saved" {
		t.Fatalf("quit report %#v", msg)
	}
}

// TestReopenRefusedOnceCompared: "peek, reopen, match" — once bob has
// submitted too, the item is compared (here disputed) and alice's ctrl+z is
// refused; the dispute and both labels stay as they were.
func TestReopenRefusedOnceCompared(t *testing.T) {
	f := newLabelFixture(t, 1, "alice", "bob")
	r, page, _ := newTestLabelRoot(t, f, "alice", 80, 24)
	k := &keys{r: r}
	k.typ("no tool")
	k.press(tea.KeyEnter)
	k.typ("nothing to look up")
	k.press(tea.KeyCtrlS)
	ctx := context.Background()
	bob := review.Label{Item: f.items[0], Reviewer: "bob", Decision: review.DecisionCall, Rationale: "look it up",
		Calls: []review.LabelCall{{Tool: "get_order_status", Args: json.RawMessage(`{"order_id":"ORD-10000"}`)}}}
	if set, err := f.st.SubmitLabel(ctx, bob); err != nil || !set.Settled || set.Comparison.Agreed {
		t.Fatalf("bob's label: %+v %v", set, err)
	}
	k.press(tea.KeyCtrlZ)
	if !r.Status().IsError() || !strings.Contains(r.Status().Text(), "has been compared") || page.state == stateReady && page.item.ID == f.items[0] {
		t.Errorf("reopen of a compared item: %q item %s state %v", r.Status().Text(), page.item.ID, page.state)
	}
	if l := storedLabel(t, f, f.items[0], "alice"); l.Rationale != "nothing to look up" {
		t.Errorf("alice's label after the refusal: %+v", l)
	}
	var status string
	if err := f.st.Reader().QueryRowContext(ctx, `SELECT status FROM items WHERE id = ?`, f.items[0]).Scan(&status); err != nil || status != "disputed" {
		t.Errorf("item after the refusal: %s %v", status, err)
	}
}

// ctrl+z on the "Nothing to label" screen a session opened on: while the
// reopen is in flight there is no item and no form, and the screen stays
// the empty one (it indexed the empty form's first call and crashed the
// session).
func TestReopenFromTheEmptyScreenWhileInFlight(t *testing.T) {
	f := newLabelFixture(t, 1, "alice")
	if _, err := f.st.SubmitLabel(context.Background(), review.Label{Item: f.items[0], Reviewer: "alice",
		Decision: review.DecisionNoCall, Rationale: "Nothing to look up."}); err != nil {
		t.Fatal(err)
	}
	r, page, _ := newTestLabelRoot(t, f, "alice", 80, 24)
	if page.state != stateEmpty {
		t.Fatalf("opened on: %v", page.state)
	}
	_, cmd := r.Update(tea.KeyMsg{Type: tea.KeyCtrlZ})
	if v := view(r); !strings.Contains(v, "Nothing to label, alice.") {
		t.Errorf("while the reopen runs:\n%s", v)
	}
	drain(r, cmd)
	if page.item.ID != f.items[0] || !strings.Contains(view(r), "Your label") {
		t.Errorf("after the reopen: item %q\n%s", page.item.ID, view(r))
	}
}

// TestItemDrawnBeforeItsCount: the item shows as soon as it is loaded, with
// "…" where its place in the queue goes and the same lines as once the
// count arrives; a count that arrives while a submit is in flight is
// dropped (it may or may not include it) and the next item's is shown.
func TestItemDrawnBeforeItsCount(t *testing.T) {
	f := newLabelFixture(t, 3, "alice")
	r, page, _ := newTestLabelRoot(t, f, "alice", 80, 24)
	counted := view(r)
	if !strings.Contains(strings.SplitN(counted, "\n", 2)[0], "alice  1/3 ") {
		t.Fatalf("header once counted:\n%s", counted)
	}
	_, next := r.Update(page.load("")())
	loaded := view(r)
	header := strings.SplitN(loaded, "\n", 2)[0]
	if page.state != stateReady || page.item.ID != f.items[0] || !strings.Contains(header, "alice  …   ") || strings.Contains(header, "1/3") {
		t.Fatalf("item before its count:\n%s", loaded)
	}
	formAt := func(v string) int { return strings.Count(v[:strings.Index(v, "── Your label")], "\n") }
	if strings.Count(loaded, "\n") != strings.Count(counted, "\n") || formAt(loaded) != formAt(counted) || ansi.StringWidth(header) != ansi.StringWidth(strings.SplitN(counted, "\n", 2)[0]) {
		t.Errorf("the count moved the lines:\n%s\n----\n%s", loaded, counted)
	}

	k := &keys{r: r}
	k.typ("no tool")
	k.press(tea.KeyEnter)
	k.typ("nothing to call")
	_, submit := r.Update(tea.KeyMsg{Type: tea.KeyCtrlS})
	drain(r, next) // the first item's count, arriving while its submit is in flight
	if page.counted {
		t.Fatalf("a count taken beside a submit was shown: %d/%d", page.done, page.total)
	}
	drain(r, submit)
	if page.item.ID != f.items[1] || !page.counted || page.done != 1 || page.total != 3 || !strings.Contains(view(r), "alice  2/3 ") {
		t.Errorf("after the submit: item %s counted %v %d/%d\n%s", page.item.ID, page.counted, page.done, page.total, view(r))
	}
}

// A load that brings the queue's count with the item (a short queue on
// PostgreSQL) shows it at once, and asks for no count of its own: a count
// asked anyway would answer, stale, for the load before.
func TestCountedLoadShowsItsCount(t *testing.T) {
	f := newLabelFixture(t, 2, "alice")
	r, page, _ := newTestLabelRoot(t, f, "alice", 80, 24)
	it := page.item
	page.load("")
	_, cmd := r.Update(itemLoadedMsg{seq: page.loadSeq, Item: it, Counted: true, Done: 6, Total: 9})
	if !page.counted || !strings.Contains(view(r), "7/9") {
		t.Fatalf("the count that came with the item is not shown:\n%s", view(r))
	}
	drain(r, cmd)
	if page.done != 6 || page.total != 9 || !strings.Contains(view(r), "7/9") {
		t.Errorf("after the load's commands: %d/%d\n%s", page.done, page.total, view(r))
	}
}
