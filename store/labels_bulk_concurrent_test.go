package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/internal/bulk"
	"github.com/goldtrace/goldtrace/review"
)

// A labels import (SubmitLabels: alice's labels of every item) and
// another reviewer's submits of the same items' last labels, through a
// second store handle (another process or serve replica), at the same
// moment: every item settles exactly once, as agreed gold or one dispute,
// never both and never neither, and exactly one of the two writes reports
// its settlement (the writers' lock orders them, a transaction at a time).
func TestSubmitLabelsBesideSubmitsSettleExactlyOnce(t *testing.T) {
	onEngines(t, testSubmitLabelsBesideSubmitsSettleExactlyOnce)
}

func testSubmitLabelsBesideSubmitsSettleExactlyOnce(t *testing.T, st *Store) {
	ctx := context.Background()
	ids := reviewersBatch(t, st, 60, "alice", "bob", "carol")
	other := twoHandles(t, st)
	var alice []review.Label
	for _, id := range ids {
		if _, err := st.SubmitLabel(ctx, callLabel(id, "carol", `{"order_id":"ORD-1"}`)); err != nil {
			t.Fatal(err)
		}
		alice = append(alice, callLabel(id, "alice", `{"order_id":"ORD-1"}`))
	}
	bobs := make([]Settlement, len(ids))
	start := make(chan struct{})
	var wg sync.WaitGroup
	var imported []Settlement
	var bulkErr error
	wg.Add(2)
	go func() {
		defer wg.Done()
		<-start
		// Short transactions of a few labels each, so that bob's
		// submits come in between them.
		pace := bulkPace{Pace: bulk.Pace{ChunkTime: 3 * time.Millisecond, Yield: time.Millisecond}}
		imported, bulkErr = st.submitLabels(ctx, alice, pace)
	}()
	go func() {
		defer wg.Done()
		<-start
		// From the last item back: the two meet somewhere in between.
		for i := len(ids) - 1; i >= 0; i-- {
			id := ids[i]
			args := `{"order_id":"ORD-1"}`
			if i%2 == 1 {
				args = `{"order_id":"ORD-2"}` // disagrees
			}
			s, err := other.SubmitLabel(ctx, callLabel(id, "bob", args))
			if err != nil {
				t.Errorf("bob's submit of %s: %v", id, err)
			}
			bobs[i] = s
		}
	}()
	close(start)
	wg.Wait()
	if bulkErr != nil {
		t.Fatal(bulkErr)
	}
	byImport := 0
	for i, id := range ids {
		byImport += boolInt(imported[i].Settled)
		if n := boolInt(imported[i].Settled) + boolInt(bobs[i].Settled); n != 1 {
			t.Errorf("item %s: %d writes report a settlement, want 1", id, n)
		}
		var status string
		var gold, disputes int
		if err := st.Reader().QueryRowContext(ctx, `SELECT status, (SELECT count(*) FROM gold WHERE item_id = ?1),
			(SELECT count(*) FROM disputes WHERE item_id = ?1) FROM items WHERE id = ?1`, id).Scan(&status, &gold, &disputes); err != nil {
			t.Fatal(err)
		}
		want := "agreed, 1 gold, 0 disputes"
		if i%2 == 1 {
			want = "disputed, 0 gold, 1 disputes"
		}
		if got := fmt.Sprintf("%s, %d gold, %d disputes", status, gold, disputes); got != want {
			t.Errorf("item %s: %s, want %s", id, got, want)
		}
	}
	t.Logf("%d items settled by the import, %d by bob's submits", byImport, len(ids)-byImport)
}

// parallelLabels has SubmitLabels on PostgreSQL write with its writers at
// once (labelsWriters) whatever the number of labels, for the rest of the
// test.
func parallelLabels(t *testing.T) {
	old := labelsParallelMin
	labelsParallelMin = 2
	t.Cleanup(func() { labelsParallelMin = old })
}

// SubmitLabels' writers at once on PostgreSQL keep its rules: a label
// that fails undoes everything the call wrote, an item settles as if its
// labels were submitted one by one, and exactly once beside another
// handle's submits of its last labels.
func TestSubmitLabelsInParallelOnPostgres(t *testing.T) {
	for _, tt := range []struct {
		name string
		test func(t *testing.T, st *Store)
	}{
		{"failing midway undoes everything", testSubmitLabelsFailingMidwayUndoesEverything},
		{"beside submits settles exactly once", testSubmitLabelsBesideSubmitsSettleExactlyOnce},
	} {
		t.Run(tt.name, func(t *testing.T) {
			parallelLabels(t)
			tt.test(t, openEngine(t, "postgres"))
		})
	}
	for _, held := range []bool{false, true} {
		t.Run(fmt.Sprintf("settles as one by one, agreed held %v", held), func(t *testing.T) {
			parallelLabels(t)
			testSubmitLabelsInGroupsSettlesAsOneByOne(t, "postgres", held)
		})
	}
}

// A label refused by one of the writers at once (not the last item's)
// fails the call naming its number in the call, and what both writers
// wrote is taken back.
func TestSubmitLabelsInParallelRefusalUndoesBothWriters(t *testing.T) {
	parallelLabels(t)
	ctx := context.Background()
	st := openEngine(t, "postgres")
	ids := reviewersBatch(t, st, 30, "alice", "bob", "carol")
	before := tableCounts(t, st)
	var labels []review.Label
	for _, id := range ids {
		labels = append(labels, noCallLabel(id, "alice"), noCallLabel(id, "bob"))
	}
	// alice's label of the third item, twice, well before the end.
	dup := len(labels) / 2
	labels = append(labels[:dup], append([]review.Label{noCallLabel(ids[2], "alice")}, labels[dup:]...)...)
	tiny := bulkPace{Pace: bulk.Pace{ChunkTime: time.Millisecond, Yield: time.Millisecond}}
	_, err := st.submitLabels(ctx, labels, tiny)
	var le *LabelError
	if !errors.As(err, &le) || le.Index != dup || !errors.Is(err, ErrConflict) {
		t.Fatalf("err = %v, want label %d refused as a conflict", err, dup)
	}
	if after := tableCounts(t, st); after != before {
		t.Errorf("after the undo: labels, gold, disputes, submitted, settled = %v, before %v", after, before)
	}
}
