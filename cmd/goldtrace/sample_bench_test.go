package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/store"
)

// smpBenchDB fills a database with items decision points (4 per trace) by
// direct batched INSERTs: 20 tools with a skewed mix (a third of the turns
// without a call, two rare tools), 5 cohorts, 1% duplicated inputs.
func smpBenchDB(b testing.TB, path string, items int) *store.Store {
	b.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	tools := []string{"(none)", "(none)", "(none)", "(none)", "(none)", "get_order", "get_order", "get_order",
		"refund", "refund", "search", "lookup_user", "cancel", "update_address", "track", "escalate"}
	const perTrace = 4
	const chunk = 20000 // traces per transaction
	for start := 0; start < items/perTrace; start += chunk {
		err := st.WithTx(ctx, func(tx *store.Tx) error {
			if start == 0 {
				// Five metadata objects: cohort_0 … cohort_4.
				if _, err := tx.ExecContext(ctx, `INSERT INTO metasets(id, json) VALUES (1, '{"cohort":"cohort_0"}'), (2, '{"cohort":"cohort_1"}'),
					(3, '{"cohort":"cohort_2"}'), (4, '{"cohort":"cohort_3"}'), (5, '{"cohort":"cohort_4"}')`); err != nil {
					return err
				}
			}
			insTrace, err := tx.PrepareContext(ctx, `INSERT INTO traces(id, ts, ts_unix, content_hash, metaset, messages, imported_at) VALUES (?, ?, ?, ?, ?, '[]', '')`)
			if err != nil {
				return err
			}
			defer insTrace.Close()
			insItem, err := tx.PrepareContext(ctx, `INSERT INTO items(id, trace_id, turn, input_hash, first_tool, n_calls, ts_unix, metaset) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
			if err != nil {
				return err
			}
			defer insItem.Close()
			for t := start; t < min(start+chunk, items/perTrace); t++ {
				id := fmt.Sprintf("tr_%07d", t)
				ts := int64(1_767_225_600 + t*60)
				metaset := 1 + t%5
				if _, err := insTrace.ExecContext(ctx, id, "", ts, id, metaset); err != nil {
					return err
				}
				for turn := 1; turn <= perTrace; turn++ {
					n := t*perTrace + turn
					input := fmt.Sprint("input ", n)
					if n%100 == 0 {
						input = fmt.Sprint("input ", n/2) // a duplicate of an earlier input
					}
					sum := sha256.Sum256([]byte(input))
					tool := tools[n%len(tools)]
					switch {
					case n%50_000 == 7:
						tool = "rare_export"
					case n%200_000 == 11:
						tool = "rarest_wipe"
					}
					calls := 1
					if tool == "(none)" {
						calls = 0
					}
					if _, err := insItem.ExecContext(ctx, fmt.Sprintf("it_%014d", n), id, turn, hex.EncodeToString(sum[:]), tool, calls, ts, metaset); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if _, err := st.CountItems(ctx); err != nil {
		b.Fatal(err)
	}
	return st
}

// BenchmarkSample draws 500 items from 1M stored items (the bar:
// under 2 s). The database is built once per run, in a temp dir. cpu-s/op is
// the process's user+system CPU time per draw, which stays meaningful on a
// loaded machine where ns/op (wall time) does not.
func BenchmarkSample(b *testing.B) {
	st := smpBenchDB(b, filepath.Join(b.TempDir(), "bench.db"), smpBenchItems)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		opts app.SampleOptions
	}{
		{"uniform", app.SampleOptions{}},
		{"by_tool", app.SampleOptions{By: "tool"}},
		{"by_meta_equal", app.SampleOptions{By: "meta.cohort", Alloc: "equal"}},
		{"where_calls", app.SampleOptions{By: "tool", Where: []string{"meta.cohort=cohort_3"}, Turns: "calls"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			o := tc.opts
			o.N, o.Seed, o.MinPer, o.PerItem, o.ExcludeSampled, o.DryRun = 500, "7", 1, 2, true, true
			o.Reviewers = []string{"alice", "bob", "carol"}
			if o.Alloc == "" {
				o.Alloc = "proportional"
			}
			if o.Turns == "" {
				o.Turns = "all"
			}
			for _, u := range o.Reviewers {
				if err := st.AddUser(ctx, u, store.RoleReviewer); err != nil {
					b.Fatal(err)
				}
			}
			be := app.New(st)
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := smpCPUTime()
			defer func() { b.ReportMetric((smpCPUTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op") }()
			for i := 0; i < b.N; i++ {
				p, err := be.Sample(ctx, app.Actor{Source: app.SourceLocal}, o, true, app.SampleIO{})
				if err != nil {
					b.Fatal(err)
				}
				if p.Sampled != 500 {
					b.Fatalf("sampled %d", p.Sampled)
				}
			}
		})
	}
}

// smpBenchItems is the size of BenchmarkSample's database.
const smpBenchItems = 1_000_000
