package store

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"
)

// statusFixture fills st with n items, each labeled by alice and bob in batch
// b1 (2n labels): one in ten disputed on the tool, one in ten on the args.
// Rows are generated inside SQLite by batched INSERT … SELECT statements.
func statusFixture(tb testing.TB, st *Store, n int) {
	tb.Helper()
	ctx := context.Background()
	for _, u := range []struct{ name, role string }{{"alice", RoleReviewer}, {"bob", RoleReviewer}, {"carol", RoleLead}} {
		if err := st.AddUser(ctx, u.name, u.role); err != nil {
			tb.Fatal(err)
		}
	}
	err := st.WithTx(ctx, func(tx *Tx) error {
		for _, q := range []string{
			`INSERT INTO traces(id, content_hash, messages, imported_at) VALUES ('tr_bench', 'h', '[]', 'now')`,
			`INSERT INTO batches(name, seed, per_item, created_at) VALUES ('b1', 1, 2, 'now')`,
			`INSERT INTO items(id, trace_id, turn, input_hash, first_tool, n_calls, status, in_batch, updated_at)
				WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?1 - 1)
				SELECT 'it_' || i, 'tr_bench', i, 'h' || i, 'tool_' || (i % 7), 1,
					CASE WHEN i % 10 IN (0, 1) THEN 'disputed' ELSE 'agreed' END, 1, 'now' FROM n`,
			`INSERT INTO assignments(item_id, reviewer, batch, position, status, updated_at)
				SELECT id, r.name, 'b1', turn, 'submitted', 'now' FROM items, (SELECT 'alice' AS name UNION ALL SELECT 'bob') r`,
			`INSERT INTO labels(item_id, reviewer, decision, calls, seconds, submitted_at)
				SELECT id, r.name,
					CASE WHEN turn % 13 = 0 THEN 'no_call' ELSE 'call' END,
					CASE WHEN turn % 13 = 0 THEN '[]'
						ELSE '[{"tool":"tool_' || (CASE WHEN r.name = 'bob' AND turn % 10 = 0 THEN (turn + 1) % 7 ELSE turn % 7 END) ||
							'","args":{"id":"' || (CASE WHEN r.name = 'bob' AND turn % 10 = 1 THEN 'X' ELSE 'A' END) || turn || '","n":' || (turn % 5) || '}}]' END,
					10 + (turn * 7 + length(r.name)) % 90, '2026-05-01T12:00:00Z'
				FROM items, (SELECT 'alice' AS name UNION ALL SELECT 'bob') r`,
			`INSERT INTO gold(item_id, status, decision, updated_at) SELECT id, 'agreed', 'call', 'now' FROM items WHERE status = 'agreed'`,
			`INSERT INTO disputes(item_id, kinds, created_at) SELECT id, '["tool"]', 'now' FROM items WHERE status = 'disputed'`,
		} {
			var args []any // PostgreSQL takes no argument a statement does not use
			if strings.Contains(q, "?1") {
				args = append(args, n)
			}
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// processCPU is the user+system CPU time this process has used, and the
// system part of it.
func processCPU() (cpu, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), time.Duration(ru.Stime.Nano())
}

// BenchmarkStatus: the lead's status over 100k labels (the target: < 500 ms).
func BenchmarkStatus(b *testing.B) {
	st := openTemp(b)
	statusFixture(b, st, 50_000)
	ctx := context.Background()
	for _, as := range []string{"carol", "alice"} {
		b.Run(as, func(b *testing.B) {
			cpu0, sys0 := processCPU()
			for b.Loop() {
				s, err := st.Status(ctx, StatusQuery{As: as})
				if err != nil {
					b.Fatal(err)
				}
				if s.Totals.Submitted != 100_000 {
					b.Fatalf("submitted %d", s.Totals.Submitted)
				}
			}
			// On a shared machine wall time mostly measures the neighbours;
			// CPU time per call is what the code costs.
			cpu1, sys1 := processCPU()
			b.ReportMetric(float64((cpu1-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64((sys1-sys0).Milliseconds())/float64(b.N), "sys-ms/op")
		})
	}
}
