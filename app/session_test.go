package app

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/store"
)

// project is a real temp-file store where alice and bob are assigned one
// item (alice has submitted, bob not yet), carol is a lead and dave a
// reviewer without assignments.
func label(item, who, order string) review.Label {
	return review.Label{Item: item, Reviewer: who, Decision: review.DecisionCall, Rationale: who + "'s reason",
		Calls: []review.LabelCall{{Tool: "get_order_status", Args: json.RawMessage(`{"order_id":"` + order + `"}`)}}}
}

func actor(t *testing.T, a *App, name string) Actor {
	t.Helper()
	act, err := a.LocalActor(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return act
}

// TestSessionHidesOtherReviewers: through a reviewer's session another
// reviewer's queue, drafts, labels and submissions read as not found, the
// same answer as for a reviewer who has none.
func TestSessionHidesOtherReviewers(t *testing.T) {
	onEngines(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		a, _, item := projectOn(t, engine)
		bob := a.As(actor(t, a, "bob"))
		if _, err := bob.LabelWork(ctx, "alice", "", item, nil); !errors.Is(err, ErrNotFound) {
			t.Errorf("alice's item and draft as bob: %v", err)
		}
		if _, err := bob.ItemLabels(ctx, item); !errors.Is(err, ErrNotFound) {
			t.Errorf("the item's labels as bob: %v", err)
		}
		_, errLabels := bob.ItemLabels(ctx, "it_does_not_exist")
		_, errOther := bob.ItemLabels(ctx, item)
		if errLabels.Error() != "labels of it_does_not_exist: not found" || errOther.Error() != "labels of "+item+": not found" {
			t.Errorf("existing and missing items read differently: %v / %v", errOther, errLabels)
		}
		if _, err := bob.LabelWork(ctx, "alice", "", "", nil); !errors.Is(err, ErrNotFound) {
			t.Errorf("alice's queue as bob: %v", err)
		}
		if err := bob.SubmitLabel(ctx, label(item, "alice", "ORD-2")); !errors.Is(err, ErrNotFound) {
			t.Errorf("bob submitting as alice: %v", err)
		}
		if _, err := bob.Reopen(ctx, item, "alice", func(review.Label) ([]byte, error) { return nil, nil }); !errors.Is(err, ErrNotFound) {
			t.Errorf("bob reopening alice's label: %v", err)
		}
		// dave, not assigned, cannot read the item at all.
		dave := a.As(actor(t, a, "dave"))
		if _, err := dave.Item(ctx, item); !errors.Is(err, ErrNotFound) {
			t.Errorf("an unassigned item as dave: %v", err)
		}
		// bob's own work goes through; then alice can no longer reopen.
		// The submit that settles the item (a dispute: ORD-2 against alice's
		// ORD-1) tells bob nothing of it: Session.SubmitLabel returns only
		// whether it was stored.
		if err := bob.SubmitLabel(ctx, label(item, "bob", "ORD-2")); err != nil {
			t.Fatal(err)
		}
		alice := a.As(actor(t, a, "alice"))
		if _, err := alice.Reopen(ctx, item, "alice", func(l review.Label) ([]byte, error) { return json.Marshal(l) }); !errors.Is(err, store.ErrConflict) {
			t.Errorf("alice reopening a compared item: %v", err)
		}
		// The lead sees both labels, and that read is audited.
		carol := a.As(actor(t, a, "carol"))
		ls, err := carol.ItemLabels(ctx, item)
		if err != nil || len(ls) != 2 {
			t.Fatalf("labels as the lead: %v %v", ls, err)
		}
		log, err := a.AuditLog(ctx, actor(t, a, "carol"), store.AuditFilter{Action: ActLabelsReadAll.String()})
		if err != nil || len(log) != 1 || log[0].Actor != "carol" || log[0].Object != "labels of "+item {
			t.Errorf("audit of the lead's read: %+v %v", log, err)
		}
	})
}

// TestSessionNotesAndLeadName: a reviewer sees only the send-back notes
// addressed to them; a lead's send-back is recorded under the session's
// lead whatever name the screen passes.
func TestSessionNotesAndLeadName(t *testing.T) {
	onEngines(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		a, st, item := projectOn(t, engine)
		if err := a.As(actor(t, a, "bob")).SubmitLabel(ctx, label(item, "bob", "ORD-2")); err != nil {
			t.Fatal(err)
		}
		carol := a.As(actor(t, a, "carol"))
		if err := carol.SendBack(ctx, item, "mallory", "alice: check the order id", []string{"alice"}, false); err != nil {
			t.Fatal(err)
		}
		if err := carol.ProposeGuideChange(ctx, item, "mallory", "bob's reading is right"); err != nil {
			t.Fatal(err)
		}
		notes, err := st.Notes(ctx, item)
		if err != nil || len(notes) != 2 || notes[0].Author != "carol" || notes[1].Author != "carol" {
			t.Fatalf("notes as stored: %+v %v", notes, err)
		}
		mine, err := a.As(actor(t, a, "alice")).Notes(ctx, item)
		if err != nil || len(mine) != 1 || mine[0].Body != "alice: check the order id" {
			t.Errorf("alice's notes: %+v %v", mine, err)
		}
		theirs, err := a.As(actor(t, a, "bob")).Notes(ctx, item)
		if err != nil || len(theirs) != 0 {
			t.Errorf("bob sees notes not addressed to him: %+v %v", theirs, err)
		}
		// A reviewer cannot send back or resolve.
		if err := a.As(actor(t, a, "bob")).SendBack(ctx, item, "carol", "x", nil, false); !errors.Is(err, ErrForbidden) {
			t.Errorf("send back as bob: %v", err)
		}
		// A removed or demoted user loses their powers at once (a session
		// opened before the change).
		if err := st.AddUser(ctx, "carol2", store.RoleLead); err != nil {
			t.Fatal(err)
		}
		if err := st.AddUser(ctx, "carol", store.RoleReviewer); err != nil {
			t.Fatal(err)
		}
		if _, err := carol.DisputedQueue(ctx, store.DisputeFilter{}); !errors.Is(err, ErrForbidden) {
			t.Errorf("a demoted lead's open session: %v", err)
		}
	})
}

// TestSessionReleaseLeadOnly: the dashboard's release goes through the same
// authorization as goldtrace assign --release: a reviewer is refused and
// nothing moves; the lead's release moves bob's skipped item to dave and is
// audited under the lead's name.
func TestSessionReleaseLeadOnly(t *testing.T) {
	onEngines(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		a, st, item := projectOn(t, engine)
		if err := st.SkipItem(ctx, item, "bob", "unclear"); err != nil {
			t.Fatal(err)
		}
		req := store.ReleaseRequest{From: "bob", To: "dave", Lead: "alice"}
		if _, _, err := a.ReleaseAssignments(ctx, Actor{}, req); !errors.Is(err, ErrForbidden) || err.Error() != "only a lead may reassign items: --as LEAD is required" {
			t.Fatalf("a release without --as: %v", err)
		}
		if _, _, err := a.As(actor(t, a, "alice")).ReleaseAssignments(ctx, req); !errors.Is(err, ErrForbidden) || !strings.Contains(err.Error(), "only a lead may reassign items") {
			t.Fatalf("a reviewer releasing: %v, want forbidden: only a lead may reassign items", err)
		}
		if _, err := st.Assignment(ctx, item, "bob"); err != nil {
			t.Fatalf("bob's item moved after a refused release: %v", err)
		}
		released, kept, err := a.As(actor(t, a, "carol")).ReleaseAssignments(ctx, req)
		if err != nil || len(released) != 1 || len(kept) != 0 || released[0].Item != item {
			t.Fatalf("the lead's release: %+v %+v %v", released, kept, err)
		}
		if _, err := st.Assignment(ctx, item, "dave"); err != nil {
			t.Errorf("dave does not have the item: %v", err)
		}
		log, err := st.AuditLog(ctx, store.AuditFilter{})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, e := range log {
			found = found || (e.Actor == "carol" && e.Object == "release from bob to dave (1 item(s) released, 0 kept)" && e.Outcome == store.AuditOK)
		}
		if !found {
			t.Errorf("release not audited as carol: %+v", log)
		}
	})
}

// TestSubmitAgainOfTheStoredAnswer: a reviewer's screen that submits again
// the answer already stored (its first submit was committed, but the
// database's answer was lost, as when PostgreSQL restarts at that moment)
// is told it is stored, and nothing changes; another answer is still
// refused as already submitted.
func TestSubmitAgainOfTheStoredAnswer(t *testing.T) {
	onEngines(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		a, st, item := projectOn(t, engine)
		alice := a.As(actor(t, a, "alice"))
		before, err := st.Label(ctx, item, "alice")
		if err != nil {
			t.Fatal(err)
		}
		again := label(item, "alice", "ORD-1")
		again.Seconds, again.SubmittedAt = before.Seconds+7, before.SubmittedAt.Add(3*time.Second)
		again.Calls[0].Args = json.RawMessage(`{ "order_id" : "ORD-1" }`)
		if err := alice.SubmitLabel(ctx, again); err != nil {
			t.Errorf("alice submitting her stored answer again: %v", err)
		}
		if after, err := st.Label(ctx, item, "alice"); err != nil || after.Seconds != before.Seconds || !after.SubmittedAt.Equal(before.SubmittedAt) {
			t.Errorf("alice's stored label changed: %+v, was %+v (%v)", after, before, err)
		}
		for name, other := range map[string]func(*review.Label){
			"another order":     func(l *review.Label) { l.Calls[0].Args = json.RawMessage(`{"order_id":"ORD-2"}`) },
			"another rationale": func(l *review.Label) { l.Rationale += "." },
			"no tool":           func(l *review.Label) { l.Decision, l.Calls = review.DecisionNoCall, nil },
		} {
			l := label(item, "alice", "ORD-1")
			other(&l)
			if err := alice.SubmitLabel(ctx, l); !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "already submitted") {
				t.Errorf("alice submitting %s over her stored label: %v, want already submitted", name, err)
			}
		}
	})
}
