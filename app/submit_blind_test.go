package app

import (
	"context"
	"testing"

	"github.com/goldtrace/goldtrace/store"
)

// TestSubmitFailureRevealsNoSettlement: a reviewer's submit that fails
// after the label was compared in its transaction (here the audit entry
// cannot be written; under serve the same happens when the transaction it
// shares is undone, ErrUndone, or its commit fails) must not hand back how
// the item settled: the comparison names the other reviewer's calls.
func TestSubmitFailureRevealsNoSettlement(t *testing.T) {
	ctx := context.Background()
	a, st, item := project(t) // alice has submitted ORD-1
	bob := a.As(actor(t, a, "bob"))
	if err := st.WithTx(ctx, func(tx *store.Tx) error {
		_, err := tx.ExecContext(ctx, `CREATE TRIGGER audit_fails BEFORE INSERT ON audit BEGIN SELECT RAISE(ABORT, 'audit unavailable'); END`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	set, err := bob.SubmitLabel(ctx, label(item, "bob", "ORD-2"))
	if err == nil {
		t.Fatal("the submit succeeded without its audit entry")
	}
	if set.Settled || len(set.Comparison.Pairs) > 0 || set.Comparison.Agreed || len(set.Comparison.Kinds) > 0 {
		t.Errorf("a failed submit told the reviewer how the item settled: %+v (%v)", set, err)
	}
}
