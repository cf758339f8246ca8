package app

import (
	"context"
	"io"
	"strings"
	"testing"
)

// TestSubmitFailsWithoutItsAuditEntry: a submit whose audit entry cannot be
// written (in the same transaction) is not stored, and the reviewer is told
// it failed. (What a submit returns is only an error: whether it settled
// the item is never handed to a reviewer, failed or not.)
func TestSubmitFailsWithoutItsAuditEntry(t *testing.T) {
	onEngines(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		a, st, item := projectOn(t, engine) // alice has submitted ORD-1
		bob := a.As(actor(t, a, "bob"))
		failAudit(t, st, engine, "audit_fails")
		if err := bob.SubmitLabel(ctx, label(item, "bob", "ORD-2")); err == nil {
			t.Fatal("the submit succeeded without its audit entry")
		}
		if _, err := st.Label(ctx, item, "bob"); err == nil {
			t.Error("bob's label was stored without its audit entry")
		}
	})
}

// TestLabelsImportFailsWithoutItsAuditEntry: a labels import's audit entry
// commits with its last labels, so an import that cannot be audited leaves
// no label behind (a crash between the labels and a separate entry would
// have lost the entry).
func TestLabelsImportFailsWithoutItsAuditEntry(t *testing.T) {
	onEngines(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		a, st, item := projectOn(t, engine) // alice has submitted ORD-1; bob is assigned too
		failAudit(t, st, engine, "audit_fails")
		line := `{"item":"` + item + `","reviewer":"bob","decision":"call","calls":[{"tool":"get_order_status","args":{"order_id":"ORD-1"}}],"rationale":"the only order"}` + "\n"
		open := func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(line)), nil }
		if _, err := a.ImportLabels(ctx, actor(t, a, "bob"), open, LabelsImportOptions{File: "bob.jsonl"}); err == nil {
			t.Fatal("the labels import succeeded without its audit entry")
		}
		if _, err := st.Label(ctx, item, "bob"); err == nil {
			t.Error("bob's imported label stayed without its audit entry")
		}
	})
}
