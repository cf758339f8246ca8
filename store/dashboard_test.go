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

func TestOpenItemCounts(t *testing.T) {
	st := openTemp(t)
	statusFixture(t, st, 20)
	ctx := context.Background()
	for _, q := range []string{
		`UPDATE items SET status = 'sampled' WHERE turn < 3`,
		`UPDATE items SET status = 'labeling' WHERE turn BETWEEN 3 AND 4`,
		`INSERT INTO batch_items(batch, item_id, position) SELECT 'b1', id, turn FROM items WHERE turn <> 0`,
	} {
		if err := st.WithTx(ctx, func(tx *Tx) error { _, err := tx.ExecContext(ctx, q); return err }); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		batch             string
		sampled, labeling int
	}{{"", 3, 2}, {"b1", 2, 2}, {"b2", 0, 0}}
	for _, tt := range tests {
		s, l, err := st.OpenItemCounts(ctx, tt.batch)
		if err != nil || s != tt.sampled || l != tt.labeling {
			t.Errorf("batch %q: sampled %d labeling %d (%v), want %d %d", tt.batch, s, l, err, tt.sampled, tt.labeling)
		}
	}
}
