package store

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/trace"
)

// openTemp opens a fresh store in a temp dir with a fixed clock.
func openTemp(t testing.TB) *Store {
	t.Helper()
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "gt.db"))
	if err != nil {
		t.Fatal(err)
	}
	st.Now = func() time.Time { return time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC) }
	t.Cleanup(func() { st.Close() })
	return st
}

func sampleTrace(id string) trace.Trace {
	return trace.Trace{
		ID:        id,
		Timestamp: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC),
		Metadata:  map[string]string{"cohort": "billing"},
		Tools: []trace.Tool{{Name: "get_order_status", Description: "Shipping status.",
			Parameters: json.RawMessage(`{"properties":{"order_id":{"type":"string"}},"type":"object"}`)}},
		Messages: []trace.Message{
			{Role: "user", Content: "where is my package?"},
			{Role: "assistant", ToolCalls: []trace.Call{trace.NewCall("c1", "get_order_status", `{"order_id":"ORD-1"}`)}},
			{Role: "tool", ToolCallID: "c1", Content: "shipped"},
			{Role: "assistant", Content: "It shipped."},
		},
	}
}

func TestMigrateTwice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gt.db")
	for i := 0; i < 2; i++ {
		st, err := Open(context.Background(), path)
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		st.Close()
	}
}

func TestInsertTraceDedupesAndRoundTrips(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	tr := sampleTrace("tr_1")
	var outcomes []InsertOutcome
	for _, x := range []trace.Trace{tr, tr, func() trace.Trace { c := tr; c.ID = "tr_2"; return c }()} {
		err := st.WithTx(ctx, func(tx *Tx) error {
			o, err := st.InsertTrace(ctx, tx, x, "test")
			outcomes = append(outcomes, o)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	want := []InsertOutcome{Inserted, DuplicateID, DuplicateContent}
	for i := range want {
		if outcomes[i] != want[i] {
			t.Errorf("insert %d: got %v, want %v", i, outcomes[i], want[i])
		}
	}
	changed := tr
	changed.Metadata = map[string]string{"cohort": "refunds"}
	err := st.WithTx(ctx, func(tx *Tx) error { _, err := st.InsertTrace(ctx, tx, changed, "test"); return err })
	if !errors.Is(err, ErrConflict) {
		t.Fatalf("same id, other content: got %v, want ErrConflict", err)
	}

	items := trace.Items(tr)
	if len(items) != 2 {
		t.Fatalf("items: %d", len(items))
	}
	got, err := st.Item(ctx, items[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.InputHash != items[0].InputHash || got.FirstTool() != "get_order_status" || len(got.Context) != 1 {
		t.Errorf("item round trip: %+v", got)
	}
	if _, err := st.Item(ctx, "it_missing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing item: %v", err)
	}
}

func TestExportedVersionsAreImmutableInSQL(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	err := st.WithTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO datasets(name, version, created_at, sha256, count, manifest, content)
			VALUES ('d', 1, 'now', 'abc', 0, '{}', x'')`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`UPDATE datasets SET message = 'x'`, `DELETE FROM datasets`} {
		err := st.WithTx(ctx, func(tx *Tx) error { _, err := tx.ExecContext(ctx, q); return err })
		if !errors.Is(err, ErrImmutable) {
			t.Errorf("%s: got %v, want ErrImmutable", q, err)
		}
	}
}

// Every embedded migration has a number of its own: of two files with one
// number only the first would ever run.
func TestMigrationNumbersAreUnique(t *testing.T) {
	entries, err := fs.ReadDir(migrationsFS(t), ".")
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range entries { // in name order
		num, _, _ := strings.Cut(e.Name(), "_")
		if v, err := strconv.Atoi(num); err != nil || v != i+1 {
			t.Errorf("migration %s is number %s, want %d (numbered 1, 2, … without gaps)", e.Name(), num, i+1)
		}
	}
}

// A database whose recorded migration has another name than this build's
// of the same number (a development build numbered two migrations alike)
// is refused with one line, not opened with that migration never made.
func TestOpenRefusesAMigrationRecordedUnderAnotherName(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gt.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.WithTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE schema_migrations SET name = '0012_other.sql' WHERE version = 12`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if _, err := Open(ctx, path); err == nil || !strings.Contains(err.Error(), "records schema migration 0012 as 0012_other.sql") {
		t.Fatalf("open: %v", err)
	}
}
