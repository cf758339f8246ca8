// Package storetest builds the small real projects (temp-file SQLite
// stores, no mocks) that the tests of several packages start from.
package storetest

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// OneItem creates a project at path where reviewers alice and bob are
// assigned the one decision point of trace tr_1 (get_order_status for an
// order id) in batch b1, carol is a lead and dave a reviewer without
// assignments. Nothing is labeled yet. It returns the open store (closed
// when the test ends) and the item's id.
func OneItem(t testing.TB, path string) (*store.Store, string) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for _, u := range []struct{ name, role string }{{"alice", store.RoleReviewer}, {"bob", store.RoleReviewer}, {"dave", store.RoleReviewer}, {"carol", store.RoleLead}} {
		if err := st.AddUser(ctx, u.name, u.role); err != nil {
			t.Fatal(err)
		}
	}
	tr := trace.Trace{ID: "tr_1", Timestamp: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC),
		Tools: []trace.Tool{{Name: "get_order_status", Description: "Status of one order.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string"}},"required":["order_id"]}`)}},
		Messages: []trace.Message{
			{Role: "user", Content: "where is ORD-1, or was it ORD-2?"},
			{Role: "assistant", ToolCalls: []trace.Call{trace.NewCall("c1", "get_order_status", `{"order_id":"ORD-1"}`)}},
		}}
	item := trace.Items(tr)[0].ID
	err = st.WithTx(ctx, func(tx *store.Tx) error {
		if _, err := st.InsertTrace(ctx, tx, tr, "test"); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO batches(name, seed, per_item, created_at) VALUES ('b1', 1, 2, 'now')`); err != nil {
			return err
		}
		for _, u := range []string{"alice", "bob"} {
			if _, err := tx.ExecContext(ctx, `INSERT INTO assignments(item_id, reviewer, batch, position, updated_at) VALUES (?, ?, 'b1', 0, 'now')`, item, u); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return st, item
}
