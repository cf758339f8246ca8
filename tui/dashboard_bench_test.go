package tui

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/store"
)

// dashboardBenchFixture turns every decision point of enough synthetic
// traces into gold: items, batch, assignments, two labels and a gold row
// each, written by batched INSERT … SELECT statements. It returns the
// number of gold items.
func dashboardBenchFixture(tb testing.TB, traces int) (*DashboardPage, *store.Store, int) {
	tb.Helper()
	st, _ := dashboardStore(tb, traces)
	ctx := context.Background()
	err := st.WithTx(ctx, func(tx *store.Tx) error {
		for _, q := range []string{
			`INSERT INTO batches(name, seed, per_item, created_at) VALUES ('b1', 1, 2, 'now')`,
			`INSERT INTO batch_items(batch, item_id, position) SELECT 'b1', id, rowid FROM items`,
			`UPDATE items SET status = CASE WHEN rowid % 10 = 0 THEN 'adjudicated' ELSE 'agreed' END`,
			`INSERT INTO assignments(item_id, reviewer, batch, position, status, updated_at)
				SELECT id, r.name, 'b1', rowid, 'submitted', 'now' FROM items, (SELECT 'alice' AS name UNION ALL SELECT 'bob') r`,
			// Gold: mostly the tool the model called, with its arguments
			// expected to be {} (so args fail), every seventh item no call.
			`INSERT INTO gold(item_id, status, decision, calls, reviewers, adjudicator, updated_at)
				SELECT id, status,
					CASE WHEN first_tool = '(none)' OR rowid % 7 = 0 THEN 'no_call' ELSE 'call' END,
					CASE WHEN first_tool = '(none)' OR rowid % 7 = 0 THEN '[]' ELSE '[{"tool":"' || first_tool || '","args":{}}]' END,
					'["alice","bob"]', CASE WHEN status = 'adjudicated' THEN 'carol' ELSE '' END, 'now'
				FROM items`,
			`INSERT INTO labels(item_id, reviewer, decision, calls, seconds, submitted_at)
				SELECT g.item_id, r.name, g.decision,
					CASE WHEN r.name = 'bob' AND i.rowid % 10 = 0 THEN '[]' ELSE g.calls END, 20, 'now'
				FROM gold g JOIN items i ON i.id = g.item_id, (SELECT 'alice' AS name UNION ALL SELECT 'bob') r`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	var n int
	if err := st.Reader().QueryRowContext(ctx, `SELECT count(*) FROM gold`).Scan(&n); err != nil {
		tb.Fatal(err)
	}
	c := &Common{Styles: StylesFor(true), Keys: DefaultKeyMap(), API: as(tb, st, "carol"), Now: time.Now}
	p := NewDashboardPage(c, DashboardOptions{Lead: "carol"})
	p.SetSize(80, 22)
	return p, st, n
}

// BenchmarkDashboard10k: one computation of the dashboard (gold records
// built as export builds them, scored, status and agreement) over about 10k
// gold items. cold: the first computation; refresh: after one gold answer
// changed (the page rebuilds only that trace's records). Target: well under
// 1 s. cpu-ms/op is the process's CPU time, which a loaded machine does not
// inflate the way it does wall time.
func BenchmarkDashboard10k(b *testing.B) {
	p, st, n := dashboardBenchFixture(b, 3300)
	if n < 10_000 {
		b.Fatalf("fixture has %d gold items, want ≥ 10k", n)
	}
	compute := func(b *testing.B) {
		msg := p.load()().(dashboardLoadedMsg)
		if msg.err != nil {
			b.Fatal(msg.err)
		}
		if msg.data.Overall.Items != n {
			b.Fatalf("scored %d items, want %d", msg.data.Overall.Items, n)
		}
	}
	b.Run("cold", func(b *testing.B) {
		cpu := cpuTime()
		for b.Loop() {
			p.cache = &app.GoldCache{}
			compute(b)
		}
		b.ReportMetric(float64((cpuTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
	})
	b.Run("refresh", func(b *testing.B) {
		compute(b)
		ctx := context.Background()
		i := 0
		cpu := cpuTime()
		for b.Loop() {
			i++
			b.StopTimer()
			if err := st.WithTx(ctx, func(tx *store.Tx) error {
				_, err := tx.ExecContext(ctx, `UPDATE gold SET rationale = ?, updated_at = ? WHERE item_id = (SELECT min(item_id) FROM gold)`,
					fmt.Sprintf("edit %d", i), fmt.Sprint(i))
				return err
			}); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			compute(b)
		}
		b.ReportMetric(float64((cpuTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
	})
}

// cpuTime is the CPU time (user + system) this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkDashboardFingerprint: the poll every two seconds over 10k gold.
func BenchmarkDashboardFingerprint(b *testing.B) {
	p, _, _ := dashboardBenchFixture(b, 3300)
	b.ResetTimer()
	for b.Loop() {
		if msg := p.fingerprint()().(dashboardFingerprintMsg); msg.err != nil {
			b.Fatal(msg.err)
		}
	}
}
