package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/internal/sqlitetest"
	"github.com/goldtrace/goldtrace/store"
)

// timers records the page's timed messages so the test fires them.
type timers struct{ msgs []tea.Msg }

func (tm *timers) after(_ time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
	tm.msgs = append(tm.msgs, fn(t0))
	return nil
}

// take removes and returns the recorded messages of type T.
func take[T any](tm *timers) []T {
	var out []T
	kept := tm.msgs[:0]
	for _, m := range tm.msgs {
		if x, ok := m.(T); ok {
			out = append(out, x)
		} else {
			kept = append(kept, m)
		}
	}
	tm.msgs = kept
	return out
}

// newImpatientRoot is a label session over path whose writes give up on a
// held lock after 100 ms, keeping unsaved drafts in recovery.
func newImpatientRoot(t *testing.T, path, recovery string) (*Root, *LabelPage, *timers, *store.Store) {
	t.Helper()
	st, err := store.OpenWith(context.Background(), path, store.Options{BusyTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	st.Now = func() time.Time { return t0 }
	t.Cleanup(func() { st.Close() })
	clk := &clock{now: t0}
	c := &Common{Styles: StylesFor(true), Keys: DefaultKeyMap(), API: as(t, st, "alice"), Now: clk.Now}
	r := NewLabelRoot(c, LabelOptions{Reviewer: "alice", Recovery: recovery}, true)
	page := r.Page(PageLabel).(*LabelPage)
	tm := &timers{}
	page.after, r.status.after = tm.after, noTimer
	r.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	drain(r, r.Init())
	take[clockTickMsg](tm)
	return r, page, tm, st
}

func typeLabel(k *keys, rationale string) {
	k.typ("stat")
	k.press(tea.KeyEnter)
	k.typ("ORD-10000")
	k.press(tea.KeyTab)
	k.typ(rationale)
}

// A held write lock makes submit and autosave fail: the form stays dirty,
// the screen says so and retries; quitting keeps the draft in the recovery
// file, and the next session restores it into the database.
func TestHeldLockKeepsTypedWorkThroughQuitAndRestart(t *testing.T) {
	f := newLabelFixture(t, 2, "alice")
	path := f.st.Path()
	recovery := app.RecoveryPath(path, "alice")
	r, page, tm, _ := newImpatientRoot(t, path, recovery)
	k := &keys{r: r}
	typeLabel(k, "User names one order.")
	release := sqlitetest.HoldWriteLock(t, path, 5*time.Second)

	k.press(tea.KeyCtrlS)
	if page.item.ID != f.items[0] || page.state != stateReady || !page.dirty {
		t.Fatalf("after a failed submit: item %s state %v dirty %v", page.item.ID, page.state, page.dirty)
	}
	status := r.Status().Text()
	if !r.Status().IsError() || !strings.Contains(status, "retrying") || !strings.Contains(status, "busy") || strings.Contains(status, "locked") {
		t.Errorf("status after a failed submit: %q", status)
	}
	if len(take[submitRetryMsg](tm)) != 1 {
		t.Error("no submit retry scheduled")
	}
	// The failed autosave keeps the form dirty and schedules a retry.
	pending := take[autosaveMsg](tm)
	if len(pending) != 1 {
		t.Fatalf("autosaves scheduled while typing: %v", pending)
	}
	drain(r, func() tea.Msg { return pending[0] })
	if !page.dirty || !strings.Contains(r.Status().Text(), "draft not saved yet") {
		t.Errorf("after a failed autosave: dirty %v status %q", page.dirty, r.Status().Text())
	}
	if len(take[autosaveMsg](tm)) != 1 {
		t.Error("no autosave retry scheduled")
	}

	start := time.Now()
	drain(r, r.quit())
	if d := time.Since(start); d > flushWait+flushSaveLimit+time.Second {
		t.Errorf("quitting took %s", d)
	}
	if len(r.flush.reports) != 1 || r.flush.reports[0].Err != nil || !strings.Contains(r.flush.reports[0].Notice, recovery) {
		t.Fatalf("flush reports %+v", r.flush.reports)
	}
	rf, err := app.ReadRecovery(recovery)
	var kept draftBody
	if err != nil || len(rf.Drafts) != 1 || rf.Drafts[0].Item != f.items[0] || json.Unmarshal(rf.Drafts[0].Body, &kept) != nil || kept.Rationale != "User names one order." {
		t.Fatalf("recovery file %+v %v", rf, err)
	}
	release()

	r2, page2, _, st2 := newImpatientRoot(t, path, recovery)
	if !strings.Contains(r2.Status().Text(), "restored 1 unsaved draft") {
		t.Errorf("status on restart %q", r2.Status().Text())
	}
	body, _, err := st2.Draft(context.Background(), f.items[0], "alice")
	var d draftBody
	if err != nil || json.Unmarshal(body, &d) != nil || d.Rationale != "User names one order." || d.Calls[0].Tool != "get_order_status" {
		t.Fatalf("restored draft %s %v", body, err)
	}
	if page2.item.ID != f.items[0] || page2.form.rationale.Value() != "User names one order." {
		t.Errorf("restarted on %s with rationale %q", page2.item.ID, page2.form.rationale.Value())
	}
	if _, err := os.Stat(recovery); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("recovery file left after restoring: %v", err)
	}
}

// A submit that failed on a held lock is retried in the background and
// lands once the lock is free; keys typed meanwhile are not lost.
func TestFailedSubmitRetriesUntilStored(t *testing.T) {
	f := newLabelFixture(t, 2, "alice")
	path := f.st.Path()
	r, page, tm, st := newImpatientRoot(t, path, "")
	k := &keys{r: r}
	typeLabel(k, "Status first")
	release := sqlitetest.HoldWriteLock(t, path, 5*time.Second)
	k.press(tea.KeyCtrlS)
	retries := take[submitRetryMsg](tm)
	if len(retries) != 1 {
		t.Fatalf("retries %v", retries)
	}
	k.typ(".") // the screen stays usable
	// Still locked: the retry fails and schedules the next.
	drain(r, func() tea.Msg { return retries[0] })
	retries = take[submitRetryMsg](tm)
	if len(retries) != 1 || page.item.ID != f.items[0] {
		t.Fatalf("second retry %v on %s", retries, page.item.ID)
	}
	release()
	drain(r, func() tea.Msg { return retries[0] })
	l, err := st.Label(context.Background(), f.items[0], "alice")
	if err != nil || l.Rationale != "Status first." {
		t.Fatalf("stored %+v %v", l, err)
	}
	if page.item.ID != f.items[1] || page.dirty {
		t.Errorf("after the retried submit: item %s dirty %v", page.item.ID, page.dirty)
	}
}

// Recovery files are one per reviewer name, and a file holding another
// reviewer's drafts is never saved under the one who opens the screen.
func TestRecoveryFileIsTheReviewersOwn(t *testing.T) {
	if a, b := app.RecoveryPath("p.db", "a/b"), app.RecoveryPath("p.db", "a_b"); a == b {
		t.Fatalf("reviewers a/b and a_b share %s", a)
	}
	f := newLabelFixture(t, 2, "alice")
	path := f.st.Path()
	recovery := app.RecoveryPath(path, "alice")
	bobs, _ := json.Marshal(draftBody{Rationale: "bob's words"})
	if err := app.KeepRecoveryDraft(recovery, "bob", app.RecoveryDraft{Item: f.items[0], Body: bobs}); err != nil {
		t.Fatal(err)
	}
	r, _, _, st := newImpatientRoot(t, path, recovery)
	if status := r.Status().Text(); !r.Status().IsError() || !strings.Contains(status, `"bob"`) {
		t.Errorf("status %q", status)
	}
	if body, _, err := st.Draft(context.Background(), f.items[0], "alice"); err == nil && strings.Contains(string(body), "bob's words") {
		t.Fatalf("bob's draft saved as alice's: %s", body)
	}
	if _, err := os.Stat(recovery); err != nil {
		t.Errorf("the other reviewer's recovery file was removed: %v", err)
	}
}

// Typing on the next item while the autosave scheduled for the item just
// submitted is still due: this item's own autosave is scheduled at once,
// the stale one does nothing when it comes, and this item's draft is
// saved — not left unsaved until the next key.
func TestTypingRightAfterSubmitIsAutosaved(t *testing.T) {
	f := newLabelFixture(t, 2, "alice")
	r, page, tm, st := newImpatientRoot(t, f.st.Path(), "")
	k := &keys{r: r}
	typeLabel(k, "First item.")
	k.press(tea.KeyCtrlS)
	if page.item.ID != f.items[1] {
		t.Fatalf("after submit the screen shows %s, want %s", page.item.ID, f.items[1])
	}
	stale := take[autosaveMsg](tm)
	if len(stale) != 1 || stale[0].ItemID != f.items[0] {
		t.Fatalf("autosaves due: %v", stale)
	}
	typeLabel(k, "Typed at once on the second.")
	// The second item's autosave is scheduled as it is typed on, not once
	// the first item's fires (then what was typed waited up to twice the
	// delay, and a replica killed meanwhile lost it).
	due := take[autosaveMsg](tm)
	if len(due) != 1 || due[0].ItemID != f.items[1] {
		t.Fatalf("typing on the second item scheduled the autosaves %v, want one for it", due)
	}
	drain(r, func() tea.Msg { return stale[0] })
	if again := take[autosaveMsg](tm); len(again) != 0 {
		t.Fatalf("the stale autosave scheduled %v", again)
	}
	drain(r, func() tea.Msg { return due[0] })
	body, _, err := st.Draft(context.Background(), f.items[1], "alice")
	if err != nil || !strings.Contains(string(body), "Typed at once on the second.") {
		t.Fatalf("draft of the second item: %s, %v", body, err)
	}
}

// The next item's load failing for a reason that passes (the database
// away for a moment: a PostgreSQL restart) is not "nothing to label": the
// screen says why, keeps what is typed meanwhile and loads again.
func TestLoadThatFailsForAMomentIsRetried(t *testing.T) {
	f := newLabelFixture(t, 2, "alice")
	r, page, tm, _ := newImpatientRoot(t, f.st.Path(), "")
	k := &keys{r: r}
	typeLabel(k, "First item.")
	take[autosaveMsg](tm)
	// The submit's load of the next item fails.
	page.load("")
	lost := fmt.Errorf("load item: database %s: the connection was lost: %w", f.st.Path(), store.ErrUnavailable)
	_, cmd := r.Update(itemLoadedMsg{seq: page.loadSeq, Err: lost})
	drain(r, cmd)
	if page.state != stateLoading || !strings.Contains(r.Status().Text(), "trying again") {
		t.Fatalf("after a failed load: state %v, status %q", page.state, r.Status().Text())
	}
	if strings.Contains(r.View(), "Nothing to label") {
		t.Fatal("a failed load shows an empty queue")
	}
	retry := take[loadRetryMsg](tm)
	if len(retry) != 1 {
		t.Fatalf("retries scheduled: %v", retry)
	}
	drain(r, func() tea.Msg { return retry[0] })
	if page.state != stateReady || page.item.ID != f.items[0] {
		t.Fatalf("after the retry: state %v item %q", page.state, page.item.ID)
	}
}
