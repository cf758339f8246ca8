package store

import (
	"context"
	"testing"
)

func TestGoldFingerprintChangesWithGoldAndLabels(t *testing.T) {
	st := openTemp(t)
	statusFixture(t, st, 20)
	ctx := context.Background()
	fp := func() string {
		t.Helper()
		s, err := st.GoldFingerprint(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if err := st.WithTx(ctx, func(tx *Tx) error { _, err := tx.ExecContext(ctx, q, args...); return err }); err != nil {
			t.Fatal(err)
		}
	}
	start := fp()
	if again := fp(); again != start {
		t.Fatalf("fingerprint changed without a write: %q → %q", start, again)
	}
	steps := []struct {
		name string
		q    string
	}{
		{"a dispute adjudicated", `INSERT INTO gold(item_id, status, decision, adjudicator, updated_at) VALUES ('it_0', 'adjudicated', 'no_call', 'carol', 'now+1')`},
		{"gold re-adjudicated", `UPDATE gold SET decision = 'call', updated_at = 'now+2' WHERE item_id = 'it_0'`},
		{"a label reopened", `DELETE FROM labels WHERE item_id = 'it_5' AND reviewer = 'bob'`},
		{"a dispute opened", `INSERT INTO disputes(item_id, kinds, created_at) VALUES ('it_5', '["args"]', 'now')`},
		{"a batch sampled", `INSERT INTO batch_items(batch, item_id, position) VALUES ('b1', 'it_3', 1)`},
	}
	// Timestamps sort after the fixture's "now", as Store.Now's do after
	// earlier writes.
	prev := start
	for _, s := range steps {
		exec(s.q)
		if got := fp(); got == prev {
			t.Errorf("%s: fingerprint unchanged (%q)", s.name, got)
		} else {
			prev = got
		}
	}
}
