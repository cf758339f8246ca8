package store

import (
	"context"
	"errors"
	"testing"
)

// A lead releases a reviewer's skipped item to another reviewer, who gets
// it pending at the end of their queue; the item settles on their label.
func TestReleaseAssignments(t *testing.T) { onEngines(t, testReleaseAssignments) }

func testReleaseAssignments(t *testing.T, st *Store) {
	ctx := context.Background()
	item := assignTwo(t, st)
	for _, u := range []struct{ name, role string }{{"carol", RoleLead}, {"dave", RoleReviewer}} {
		if err := st.AddUser(ctx, u.name, u.role); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.SubmitLabel(ctx, callLabel(item, "alice", `{"order_id":"ORD-1"}`)); err != nil {
		t.Fatal(err)
	}
	if err := st.SkipItem(ctx, item, "bob", "can't judge refunds"); err != nil {
		t.Fatal(err)
	}
	req := ReleaseRequest{Lead: "carol", From: "bob", To: "dave"}
	if _, _, err := st.ReleaseAssignments(ctx, ReleaseRequest{Lead: "alice", From: "bob", To: "dave"}); !errors.Is(err, ErrForbidden) {
		t.Fatalf("a reviewer released: %v", err)
	}
	if _, _, err := st.ReleaseAssignments(ctx, ReleaseRequest{Lead: "carol", From: "bob", To: "nobody"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("release to an unknown user: %v", err)
	}
	released, kept, err := st.ReleaseAssignments(ctx, req)
	if err != nil || len(released) != 1 || len(kept) != 0 || released[0].Item != item || released[0].Status != AssignSkipped || released[0].Reason != "can't judge refunds" {
		t.Fatalf("released %+v kept %+v: %v", released, kept, err)
	}
	a, err := st.NextAssignment(ctx, "dave", "")
	if err != nil || a.ItemID != item || a.Status != AssignPending {
		t.Fatalf("dave's queue: %+v %v", a, err)
	}
	if _, err := st.Assignment(ctx, item, "bob"); !errors.Is(err, ErrNotFound) {
		t.Errorf("bob still holds the item: %v", err)
	}
	// Again: nothing left to release.
	if released, _, err := st.ReleaseAssignments(ctx, req); err != nil || len(released) != 0 {
		t.Errorf("second release %+v %v", released, err)
	}
	// Dave's label settles the item against alice's.
	if _, err := st.SubmitLabel(ctx, callLabel(item, "dave", `{"order_id":"ORD-1"}`)); err != nil {
		t.Fatal(err)
	}
	if s := itemStatus(t, st, item); s != "agreed" {
		t.Errorf("item status %s after dave's label", s)
	}
}

// Skipped items come back at the end of the queue, oldest skip first, never
// one excluded (skipped in this session); the skip reason comes along.
func TestReturnSkipped(t *testing.T) { onEngines(t, testReturnSkipped) }

func testReturnSkipped(t *testing.T, st *Store) {
	ctx := context.Background()
	item := assignTwo(t, st)
	if err := st.SkipItem(ctx, item, "bob", "no context"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.ReturnSkipped(ctx, "bob", "", []string{item}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("an excluded item came back: %v", err)
	}
	got, reason, err := st.ReturnSkipped(ctx, "bob", "", nil)
	if err != nil || got != item || reason != "no context" {
		t.Fatalf("returned %q %q %v", got, reason, err)
	}
	a, err := st.NextAssignment(ctx, "bob", "")
	if err != nil || a.ItemID != item || a.Status != AssignPending {
		t.Fatalf("bob's queue %+v %v", a, err)
	}
	// Pending again, it takes drafts (typed work is saved).
	if err := st.SaveDraft(ctx, item, "bob", []byte(`{}`), 3); err != nil {
		t.Errorf("draft on a returned item: %v", err)
	}
}
