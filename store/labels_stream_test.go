package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/review"
)

// streamProject is twenty items assigned to alice and bob, and their
// labels in order (alice's and bob's of an item next to each other).
func streamProject(t *testing.T, st *Store) []review.Label {
	t.Helper()
	ctx := context.Background()
	fillTraces(t, st, 20)
	for _, r := range []string{"alice", "bob", "carol"} {
		if err := st.AddUser(ctx, r, RoleReviewer); err != nil {
			t.Fatal(err)
		}
	}
	ids := allItems(t, st)
	if err := st.CreateBatch(ctx, newBatchOf("b1", ids, "alice", "bob")); err != nil {
		t.Fatal(err)
	}
	var labels []review.Label
	for _, id := range ids[:len(ids)-1] {
		labels = append(labels, noCallLabel(id, "alice"), noCallLabel(id, "bob"))
	}
	return labels
}

// waitForLabel waits until l is stored (committed), failing the test after
// a while.
func waitForLabel(t *testing.T, st *Store, l review.Label) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		if _, err := st.Label(context.Background(), l.Item, l.Reviewer); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the label of %s by %s was not written", l.Item, l.Reviewer)
		}
	}
}

// SubmitCheckedLabelStream writes labels as they come (on SQLite), in order, and
// leaves the write lock free while it waits for more: a reviewer's submit
// gets in at once. The audit entry, with the object set before the end,
// commits with the last labels.
func TestSubmitCheckedLabelStreamWritesAsLabelsCome(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		labels := streamProject(t, st)
		ids := allItems(t, st)
		ctx := WithAudit(context.Background(), AuditEntry{Actor: "carol", Role: RoleLead, Source: "local", Action: "labels.import-others", Object: "labels"})
		in := make(chan CheckedLabels)
		type result struct {
			sets []Settlement
			err  error
		}
		done := make(chan result, 1)
		go func() {
			sets, err := st.SubmitCheckedLabelStream(ctx, in)
			done <- result{sets, err}
		}()
		in <- CheckedLabels{Labels: labels[:10]}
		if !st.onPostgres() { // there the labels are written once all are received
			waitForLabel(t, st, labels[9])
		}
		// The stream waits for more: another reviewer's submit is not held up.
		began := time.Now()
		if _, err := st.SubmitLabel(context.Background(), noCallLabel(ids[len(ids)-1], "alice")); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(began); took > 2*time.Second {
			t.Errorf("a submit beside a waiting stream took %v", took)
		}
		in <- CheckedLabels{Labels: labels[10:]}
		SetAuditObject(ctx, "38 labels from l.jsonl")
		close(in)
		r := <-done
		if r.err != nil || len(r.sets) != len(labels) {
			t.Fatalf("stream: %v, %d settlements for %d labels", r.err, len(r.sets), len(labels))
		}
		for i, s := range r.sets {
			if s.Settled != (i%2 == 1) || (s.Settled && !s.Comparison.Agreed) {
				t.Errorf("label %d: %+v, want settled (agreed) on the item's second label only", i, s)
			}
		}
		if c := tableCounts(t, st); c[0] != len(labels)+1 || c[1] != len(labels)/2 {
			t.Errorf("counts %v, want %d labels and %d gold", c, len(labels)+1, len(labels)/2)
		}
		es, err := st.AuditLog(context.Background(), AuditFilter{Action: "labels.import-others"})
		if err != nil || len(es) != 1 || es[0].Object != "38 labels from l.jsonl" {
			t.Errorf("audit: %v %+v", err, es)
		}
	})
}

// A stream given up (its context cancelled) after some labels were
// written takes them all back, writes no audit entry, and says why.
func TestSubmitCheckedLabelStreamGivenUpTakesBackItsLabels(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		labels := streamProject(t, st)
		before := tableCounts(t, st)
		ctx, stop := context.WithCancelCause(WithAudit(context.Background(),
			AuditEntry{Actor: "carol", Role: RoleLead, Source: "local", Action: "labels.import-others", Object: "labels"}))
		in := make(chan CheckedLabels, 1)
		done := make(chan error, 1)
		go func() {
			_, err := st.SubmitCheckedLabelStream(ctx, in)
			done <- err
		}()
		in <- CheckedLabels{Labels: labels[:20]}
		if st.onPostgres() {
			// There the labels are written once all are received: none yet.
			time.Sleep(100 * time.Millisecond)
		} else {
			waitForLabel(t, st, labels[19])
		}
		refused := errors.New("line 21 is invalid")
		stop(refused)
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("a stream given up: %v", err)
		}
		if got := tableCounts(t, st); got != before {
			t.Errorf("counts %v after the stream was given up, %v before", got, before)
		}
		if es, err := st.AuditLog(context.Background(), AuditFilter{Action: "labels.import-others"}); err != nil || len(es) != 0 {
			t.Errorf("audit of a stream given up: %v %+v", err, es)
		}
	})
}

// A group ends after the labels of its last item that come next to each
// other, as far as they have been received.
func TestLabelFeedItemEndKeepsAnItemsLabelsTogether(t *testing.T) {
	in := make(chan CheckedLabels, 2)
	in <- CheckedLabels{Labels: []review.Label{noCallLabel("a", "alice"), noCallLabel("a", "bob"), noCallLabel("b", "alice"), noCallLabel("b", "bob")}}
	in <- CheckedLabels{Labels: []review.Label{noCallLabel("b", "carol"), noCallLabel("c", "alice")}}
	f := &labelFeed{in: in}
	for _, c := range []struct{ end, want int }{{1, 2}, {2, 2}, {3, 5}, {5, 5}, {6, 6}} {
		if got := f.itemEnd(c.end); got != c.want {
			t.Errorf("itemEnd(%d) = %d, want %d", c.end, got, c.want)
		}
	}
}
