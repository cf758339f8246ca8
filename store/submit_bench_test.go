package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkSubmitTwoHandles submits the two labels of each item, alice's
// through one store handle and bob's through another (two pools, as two
// serve replicas), four writers on each at once, on PostgreSQL, each as
// serve does: with its audit entry and the reviewer's SSH key checked.
// Half the submits settle their item. The writers'
// lock serializes them, so the time per submit is about how long a submit
// holds it. It reports round trips per submit, counted by a proxy between
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
	u, err := url.Parse(st.Path())
	if err != nil {
		b.Fatal(err)
	}
	var trips atomic.Int64
	u.Host = countTrips(b, u.Host, &trips)
	handles := make([]*Store, 2)
	for i := range handles {
		if handles[i], err = Open(ctx, u.String()); err != nil {
			b.Fatal(err)
		}
		handles[i].Now = st.Now
		defer handles[i].Close()
	}
	const writers = 4
	errs := make(chan error, 2*writers)
	var wg sync.WaitGroup
	trips.Store(0)
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
	b.ReportMetric(float64(trips.Load())/submits, "trips/submit")
	b.ReportMetric(float64(took.Microseconds())/submits, "µs/submit")
}

// countTrips starts a proxy to the server at addr and returns its address;
// every message a client sends that ends a round trip (Sync, Query) adds
// one to n.
func countTrips(b *testing.B, addr string, n *atomic.Int64) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", addr)
			if err != nil {
				c.Close()
				continue
			}
			go func() { _, _ = io.Copy(c, s); c.Close() }()
			go func() { countMessages(c, s, n); s.Close() }()
		}
	}()
	return ln.Addr().String()
}

// countMessages copies a client's protocol stream to the server, counting
// the Sync and Query messages after the (untyped) startup message.
func countMessages(from io.Reader, to io.Writer, n *atomic.Int64) {
	var head [5]byte
	if _, err := io.ReadFull(from, head[:4]); err != nil {
		return
	}
	size := int64(binary.BigEndian.Uint32(head[:4]))
	if _, err := to.Write(head[:4]); err != nil {
		return
	}
	if _, err := io.CopyN(to, from, size-4); err != nil {
		return
	}
	for {
		if _, err := io.ReadFull(from, head[:]); err != nil {
			return
		}
		if head[0] == 'S' || head[0] == 'Q' {
			n.Add(1)
		}
		if _, err := to.Write(head[:]); err != nil {
			return
		}
		if _, err := io.CopyN(to, from, int64(binary.BigEndian.Uint32(head[1:]))-4); err != nil {
			return
		}
	}
}
