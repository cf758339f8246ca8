package app

import (
	"context"
	"testing"

	"github.com/goldtrace/goldtrace/store"
)

// auditRows counts the audit log's entries for action (outcome ok).
func auditRows(t *testing.T, st *store.Store, action Action) int {
	t.Helper()
	log, err := st.AuditLog(context.Background(), store.AuditFilter{Action: action.String()})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range log {
		if e.Outcome == store.AuditOK {
			n++
		}
	}
	return n
}

// TestActionAndAuditCommitTogether: a write action and its audit entry are
// one transaction. When the entry cannot be written (a trigger refuses
// it), the label is not stored either; when it can, both are there, the
// entry once. A refusal, which has no action, still gets an entry of its
// own.
func TestActionAndAuditCommitTogether(t *testing.T) {
	onEngines(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		a, st, item := projectOn(t, engine)
		bob := a.As(actor(t, a, "bob"))
		failAudit(t, st, engine, "refuse_audit")
		if err := bob.SubmitLabel(ctx, label(item, "bob", "ORD-1")); err == nil {
			t.Fatal("submit succeeded though its audit entry could not be written")
		}
		if _, err := st.Label(ctx, item, "bob"); !isNotFound(err) {
			t.Fatalf("the label was stored without its audit entry: %v", err)
		}

		allowAudit(t, st, engine, "refuse_audit")
		if err := bob.SubmitLabel(ctx, label(item, "bob", "ORD-1")); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Label(ctx, item, "bob"); err != nil {
			t.Fatalf("label after a good submit: %v", err)
		}
		if n := auditRows(t, st, ActLabelSubmit); n != 1 {
			t.Errorf("%d submit entries, want 1", n)
		}
		// A second submit is refused by the store (already submitted): no
		// entry for what did not happen.
		if err := bob.SubmitLabel(ctx, label(item, "bob", "ORD-2")); err == nil {
			t.Fatal("a second submit was accepted")
		}
		if n := auditRows(t, st, ActLabelSubmit); n != 1 {
			t.Errorf("%d submit entries after a refused resubmit, want 1", n)
		}

		// A guide set to the text in force changes nothing and records nothing.
		carol := actor(t, a, "carol")
		if _, changed, err := a.SetGuide(ctx, carol, "g_1", "# guide"); err != nil || !changed {
			t.Fatalf("set guide: %v %v", changed, err)
		}
		if _, changed, err := a.SetGuide(ctx, carol, "g_1", "# guide"); err != nil || changed {
			t.Fatalf("set the same guide again: %v %v", changed, err)
		}
		if n := auditRows(t, st, ActGuideSet); n != 1 {
			t.Errorf("%d guide entries, want 1", n)
		}

		// A refusal is recorded on its own.
		if _, _, err := a.SetGuide(ctx, actor(t, a, "dave"), "g_2", "# mine"); err == nil {
			t.Fatal("a reviewer set the guide")
		}
		log, err := st.AuditLog(ctx, store.AuditFilter{Actor: "dave"})
		if err != nil || len(log) != 1 || log[0].Outcome != store.AuditDenied {
			t.Errorf("dave's refusal in the audit log: %+v %v", log, err)
		}
	})
}
