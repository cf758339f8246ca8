package tui

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/store"
)

// startFlow runs a real label program for reviewer over f at 80×24 with the
// ASCII colour profile and the fixed clock.
func startFlow(t *testing.T, f labelFixture, reviewer string) *teatest.TestModel {
	t.Helper()
	lipgloss.SetColorProfile(termenv.Ascii)
	c := &Common{Styles: StylesFor(false), Keys: DefaultKeyMap(), API: as(t, f.st, reviewer), Now: func() time.Time { return t0 }}
	tm := teatest.NewTestModel(t, NewLabelRoot(c, LabelOptions{Reviewer: reviewer}, true), teatest.WithInitialTermSize(80, 24))
	t.Cleanup(func() { _ = tm.Quit() })
	return tm
}

func waitFor(t *testing.T, tm *teatest.TestModel, text string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(text)) },
		teatest.WithDuration(20*time.Second), teatest.WithCheckInterval(5*time.Millisecond))
}

func keyOf(t tea.KeyType) tea.KeyMsg { return tea.KeyMsg{Type: t} }

// TestFlowLabelSkipReopenResume labels three items, skips one, reopens one,
// quits with a draft and comes back to it, all through a running program.
func TestFlowLabelSkipReopenResume(t *testing.T) {
	f := newLabelFixture(t, 5, "alice")
	ctx := context.Background()
	tm := startFlow(t, f, "alice")
	waitFor(t, tm, "1/5")
	steps := []struct {
		typed []any // strings are typed, key types pressed
		then  string
	}{
		{[]any{"stat", tea.KeyEnter, "ORD-10000", tea.KeyTab, "one order", tea.KeyCtrlS}, "2/5"},
		{[]any{"no tool", tea.KeyEnter, "ask which order", tea.KeyCtrlS}, "3/5"},
		{[]any{"faq", tea.KeyEnter, "late", tea.KeyTab, "faq first", tea.KeyCtrlS}, "4/5"},
		{[]any{tea.KeyCtrlN, "context cut off", tea.KeyEnter}, "5/5"},
		{[]any{tea.KeyCtrlZ}, "reopened " + f.items[2]},
		{[]any{" then status", tea.KeyCtrlS}, "submitted " + f.items[2]},
		{[]any{"ship", tea.KeyEnter, "ORD-10004"}, "ORD-10004"},
	}
	for _, s := range steps {
		for _, x := range s.typed {
			switch x := x.(type) {
			case string:
				tm.Type(x)
			case tea.KeyType:
				tm.Send(keyOf(x))
			}
		}
		waitFor(t, tm, s.then)
	}
	tm.Send(keyOf(tea.KeyCtrlC))
	tm.WaitFinished(t, teatest.WithFinalTimeout(20*time.Second))

	prog, err := f.st.Progress(ctx, "alice", "")
	if err != nil || prog[store.AssignSubmitted] != 3 || prog[store.AssignSkipped] != 1 || prog[store.AssignDraft] != 1 {
		t.Fatalf("progress %v %v", prog, err)
	}
	if l := storedLabel(t, f, f.items[2], "alice"); l.Rationale != "faq first then status" || l.Calls[0].Tool != "search_faq" {
		t.Errorf("reopened label %+v", l)
	}
	if l := storedLabel(t, f, f.items[1], "alice"); l.Decision != review.DecisionNoCall {
		t.Errorf("no-tool label %+v", l)
	}

	// Resume: the draft is back with its arguments; finish and submit.
	tm = startFlow(t, f, "alice")
	waitFor(t, tm, "create_shipment")
	tm.Send(keyOf(tea.KeyShiftTab)) // from the arguments back to the tool
	tm.Send(keyOf(tea.KeyTab))      // and to the arguments: at the empty carrier value
	tm.Type("dhl")
	tm.Send(keyOf(tea.KeyEnter)) // nothing more required: to the rationale
	tm.Type("ship it")
	tm.Send(keyOf(tea.KeyCtrlS))
	// The item skipped in the first session comes back at the end of the
	// queue; skipped again, it waits for the next session.
	waitFor(t, tm, "back from your skips")
	tm.Send(keyOf(tea.KeyCtrlN))
	tm.Type("still cut off")
	tm.Send(keyOf(tea.KeyEnter))
	waitFor(t, tm, "Nothing to label, alice.")
	tm.Type("q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(20*time.Second))
	l := storedLabel(t, f, f.items[4], "alice")
	if string(l.Calls[0].Args) != `{"carrier":"dhl","order_id":"ORD-10004"}` || l.Rationale != "ship it" {
		t.Errorf("resumed label %+v %s", l, l.Calls[0].Args)
	}
	if !strings.HasPrefix(l.GuideVersion, "g_") {
		t.Errorf("guide version %q", l.GuideVersion)
	}
}
