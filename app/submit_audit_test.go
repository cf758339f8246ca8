package app

import (
	"context"
	"testing"

	"github.com/goldtrace/goldtrace/store"
)

// TestSubmitFailsWithoutItsAuditEntry: a submit whose audit entry cannot be
// written (in the same transaction) is not stored, and the reviewer is told
// it failed. (What a submit returns is only an error: whether it settled
// the item is never handed to a reviewer, failed or not.)
func TestSubmitFailsWithoutItsAuditEntry(t *testing.T) {
	ctx := context.Background()
	a, st, item := project(t) // alice has submitted ORD-1
	bob := a.As(actor(t, a, "bob"))
	if err := st.WithTx(ctx, func(tx *store.Tx) error {
		_, err := tx.ExecContext(ctx, `CREATE TRIGGER audit_fails BEFORE INSERT ON audit BEGIN SELECT RAISE(ABORT, 'audit unavailable'); END`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := bob.SubmitLabel(ctx, label(item, "bob", "ORD-2")); err == nil {
		t.Fatal("the submit succeeded without its audit entry")
	}
	if _, err := st.Label(ctx, item, "bob"); err == nil {
		t.Error("bob's label was stored without its audit entry")
	}
}
