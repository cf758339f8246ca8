package store

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/internal/pgtest"
)

// BenchmarkSubmitTwoHandles submits the two labels of each item, alice's
// through one store handle and bob's through another (two pools, as two
// serve replicas), four writers on each at once, on PostgreSQL, each as
// serve does: with its audit entry and the reviewer's SSH key checked.
// Half the submits settle their item. Submits to different items run at
// once, the two of an item one at a time (its lock). It reports round trips per submit, counted by a proxy between
// the store and the server (a round trip is a message that ends with Sync
// or a simple Query), and µs per submit.
//
//	GOLDTRACE_TEST_PG=postgres://… go test ./store -run '^$' -bench BenchmarkSubmitTwoHandles -benchtime=400x
func BenchmarkSubmitTwoHandles(b *testing.B) {
	ctx := context.Background()
	st := openEngine(b, "postgres")
	fillTraces(b, st, b.N)
	ids := allItems(b, st)
	for i, r := range []string{"alice", "bob"} {
		if err := st.AddUser(ctx, r, RoleReviewer); err != nil {
			b.Fatal(err)
		}
		if err := st.AddUserKey(ctx, r, UserKey{Fingerprint: fmt.Sprintf("SHA256:key%d", i), Key: "ssh-ed25519 AAAA " + r}); err != nil {
			b.Fatal(err)
		}
	}
	if err := st.CreateBatch(ctx, newBatchOf("b1", ids, "alice", "bob")); err != nil {
		b.Fatal(err)
	}
	dsn, trips := pgtest.CountTrips(b, st.Path())
	handles := make([]*Store, 2)
	for i := range handles {
		var err error
		if handles[i], err = Open(ctx, dsn); err != nil {
			b.Fatal(err)
		}
		handles[i].Now = st.Now
		defer handles[i].Close()
	}
	const writers = 4
	errs := make(chan error, 2*writers)
	var wg sync.WaitGroup
	trips0 := trips.N()
	b.ResetTimer()
	began := time.Now()
	for h, reviewer := range []string{"alice", "bob"} {
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < len(ids); i += writers {
					actx := WithAudit(ctx, AuditEntry{Actor: reviewer, Role: RoleReviewer, Source: "ssh",
						KeyFingerprint: fmt.Sprintf("SHA256:key%d", h), Action: "label.submit", Object: ids[i]})
					if _, err := handles[h].SubmitLabel(actx, callLabel(ids[i], reviewer, `{"order_id":"ORD-1"}`)); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	took := time.Since(began)
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	submits := float64(2 * len(ids))
	b.ReportMetric(float64(trips.N()-trips0)/submits, "trips/submit")
	b.ReportMetric(float64(took.Microseconds())/submits, "µs/submit")
}
