package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/sampling"

	"github.com/goldtrace/goldtrace/trace"
)

// smpStoreTrace is a one-question trace whose single assistant turn calls
// tool ("" = no call).
func smpStoreTrace(id string, ts time.Time, cohort, question, tool string) trace.Trace {
	t := trace.Trace{ID: id, Timestamp: ts, Tools: []trace.Tool{{Name: "t1"}}}
	if cohort != "" {
		t.Metadata = map[string]string{"cohort": cohort}
	}
	t.Messages = []trace.Message{{Role: "user", Content: question}}
	if tool == "" {
		t.Messages = append(t.Messages, trace.Message{Role: "assistant", Content: "answer to " + question})
	} else {
		t.Messages = append(t.Messages, trace.Message{Role: "assistant", ToolCalls: []trace.Call{trace.NewCall("c", tool, "{}")}})
	}
	return t
}

func smpInsert(t *testing.T, st *Store, traces ...trace.Trace) {
	t.Helper()
	ctx := context.Background()
	err := st.WithTx(ctx, func(tx *Tx) error {
		for _, tr := range traces {
			if _, err := st.InsertTrace(ctx, tx, tr, "test"); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// scanRows lists every item a scan reads for f (copies and items in a
// batch included) with its stratum, through the scan's own queries.
func scanRows(t *testing.T, st *Store, f CandidateFilter) map[int64]string {
	t.Helper()
	ctx := context.Background()
	scan, err := st.candidateScan(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	units, err := st.candidateUnits(ctx, scan)
	if err != nil {
		t.Fatal(err)
	}
	read, err := st.readUnits(ctx, scan, units)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]string{}
	for _, r := range read {
		for _, b := range append(r.parts[:], r.odd) {
			for i, row := range b.rows {
				if _, ok := out[row]; ok {
					t.Errorf("row %d read twice", row)
				}
				out[row] = scan.strata[b.stratum[i]]
			}
		}
	}
	return out
}

// smpScan lists "trace id:stratum" of every item a scan reads for f, by
// trace id.
func smpScan(t *testing.T, st *Store, f CandidateFilter) []string {
	t.Helper()
	strata := scanRows(t, st, f)
	var rows []int64
	for r := range strata {
		rows = append(rows, r)
	}
	details, err := st.CandidatesByRow(context.Background(), rows)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, details[r].TraceID+":"+strata[r])
	}
	slices.Sort(out)
	return out
}

func TestScanCandidatesFilters(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		day := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
		smpInsert(t, st,
			smpStoreTrace("tr_c", day.Add(time.Hour), "billing", "q1", "refund"),
			smpStoreTrace("tr_b", day.Add(time.Hour), "shipping", "q2", ""),
			smpStoreTrace("tr_a", day.Add(2*time.Hour), "billing", "q3", "lookup"),
			smpStoreTrace("tr_0", time.Time{}, "", "q4", "refund"),
			smpStoreTrace("tr_z", day, "billing", "q5", ""),
		)
		tests := []struct {
			f    CandidateFilter
			want string
		}{
			{CandidateFilter{}, "tr_0: tr_a: tr_b: tr_c: tr_z:"},
			{CandidateFilter{By: "tool"}, "tr_0:refund tr_a:lookup tr_b:(none) tr_c:refund tr_z:(none)"},
			{CandidateFilter{By: "meta.cohort"}, "tr_0:(unset) tr_a:billing tr_b:shipping tr_c:billing tr_z:billing"},
			{CandidateFilter{Where: []sampling.Condition{{Key: "meta.cohort", Value: "billing"}, {Key: "tool", Value: "refund"}}}, "tr_c:"},
			{CandidateFilter{Where: []sampling.Condition{{Key: "tool", Value: "refund"}, {Key: "tool", Value: "lookup"}}}, ""},
			{CandidateFilter{Turns: sampling.TurnsNoCalls}, "tr_b: tr_z:"},
			{CandidateFilter{Turns: sampling.TurnsCalls}, "tr_0: tr_a: tr_c:"},
			{CandidateFilter{Since: day.Add(time.Hour), Until: day.Add(2 * time.Hour)}, "tr_b: tr_c:"},
			{CandidateFilter{Where: []sampling.Condition{{Key: "meta.cohort", Value: "nope"}}}, ""},
		}
		for _, tc := range tests {
			if got := strings.Join(smpScan(t, st, tc.f), " "); got != tc.want {
				t.Errorf("%+v: got %q, want %q", tc.f, got, tc.want)
			}
		}
		if err := st.DrawCandidates(context.Background(), CandidateFilter{By: "color"}, sampling.NewSampler(1, 5, true)); err == nil {
			t.Error("--by color: no error")
		}
		if err := st.DrawCandidates(context.Background(), CandidateFilter{Turns: "some"}, sampling.NewSampler(1, 5, true)); err == nil {
			t.Error("turns some: no error")
		}
	})
}

func TestCreateBatchIsOneTransaction(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		ctx := context.Background()
		day := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
		var ids []string
		for i := 0; i < 4; i++ {
			tr := smpStoreTrace(fmt.Sprint("tr_", i), day, "billing", fmt.Sprint("q", i), "refund")
			smpInsert(t, st, tr)
			ids = append(ids, trace.Items(tr)[0].ID)
		}
		for _, u := range []string{"alice", "bob"} {
			if err := st.AddUser(ctx, u, RoleReviewer); err != nil {
				t.Fatal(err)
			}
		}
		name, _ := st.NextBatchName(ctx)
		if name != "b1" {
			t.Fatalf("first batch name %q", name)
		}
		both := []string{"alice", "bob"}
		good := NewBatch{Name: "b1", Seed: 9, PerItem: 2, Params: map[string]int{"n": 2},
			Items: []BatchItem{{ids[1], "refund", both}, {ids[0], "refund", both}}}
		if err := st.CreateBatch(ctx, good); err != nil {
			t.Fatal(err)
		}
		// An unknown reviewer or item anywhere undoes the whole batch.
		for _, bad := range []NewBatch{
			{Name: "b2", Seed: 1, PerItem: 1, Items: []BatchItem{{ids[2], "", []string{"alice"}}, {ids[3], "", []string{"zed"}}}},
			{Name: "b2", Seed: 1, PerItem: 1, Items: []BatchItem{{ids[2], "", []string{"alice"}}, {"it_missing", "", []string{"bob"}}}},
		} {
			if err := st.CreateBatch(ctx, bad); !errors.Is(err, ErrNotFound) {
				t.Errorf("bad batch: %v, want ErrNotFound", err)
			}
		}
		if err := st.CreateBatch(ctx, NewBatch{Name: "b1", PerItem: 1}); !errors.Is(err, ErrConflict) {
			t.Errorf("batch name reused: %v, want ErrConflict", err)
		}
		if name, _ := st.NextBatchName(ctx); name != "b2" {
			t.Errorf("next batch name %q, want b2", name)
		}
		var newItems int
		st.Reader().QueryRowContext(ctx, `SELECT count(*) FROM items WHERE status = 'new'`).Scan(&newItems)
		if newItems != 2 {
			t.Errorf("%d items still new, want 2 (failed batches must change nothing)", newItems)
		}
		// The sampled inputs, read from items' status, are those of the
		// batches' items.
		hashes, err := st.SampledInputHashes(ctx)
		inBatches, _ := queryStrings(ctx, st.Reader(), `SELECT DISTINCT i.input_hash FROM batch_items b JOIN items i ON i.id = b.item_id ORDER BY 1`)
		if err != nil || len(hashes) != 2 || !slices.Equal(hashes, inBatches) {
			t.Errorf("sampled hashes %v, %v; of the batches' items %v", hashes, err, inBatches)
		}
		var pos int
		st.Reader().QueryRowContext(ctx, `SELECT position FROM assignments WHERE item_id = ? AND reviewer = 'bob'`, ids[0]).Scan(&pos)
		if pos != 1 {
			t.Errorf("bob sees %s at %d, want 1 (second in sample order)", ids[0], pos)
		}

		batches, err := st.Batches(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(batches) != 1 {
			t.Fatalf("batches: %+v", batches)
		}
		b := batches[0]
		if b.Name != "b1" || b.Seed != 9 || b.Items != 2 || b.PerItem != 2 || strings.Join(b.Reviewers, ",") != "alice,bob" ||
			b.Assignments["pending"] != 4 || b.Assignments["submitted"] != 0 || string(b.Params) != `{"n":2}` {
			t.Errorf("batch summary: %+v", b)
		}
		if missing, _ := st.MissingUsers(ctx, []string{"alice", "zed", "bob", "yan"}); strings.Join(missing, ",") != "zed,yan" {
			t.Errorf("missing users %v", missing)
		}
	})
}

// DrawCandidates draws what an exact-mode sampler draws from the same items
// offered one by one in Earlier order (the scan it replaced): with copies
// of inputs across tools, copies at the same time (told apart by trace
// id), items without a time, items in a batch left out and their inputs
// excluded, and filters. A cancelled scan ends with the cancellation.
func TestDrawCandidatesMatchesOrderedScan(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		ctx := context.Background()
		day := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
		var traces []trace.Trace
		for i := range 3000 {
			n := (i * 7919) % 3000 // inserted out of order
			ts := day.Add(time.Duration(n%2200%61) * time.Minute)
			if n%3 == 0 {
				ts = day.Add(time.Duration(n) * time.Second)
			}
			if n%100 == 99 {
				ts = time.Time{}
			}
			// Copies of a question differ in cohort (an import keeps one
			// of two traces with the same content), and often in tool.
			tool := []string{"", "refund", "lookup", "zap"}[n/7%4]
			traces = append(traces, smpStoreTrace(fmt.Sprintf("tr_%05d", n), ts, []string{"a", "b"}[n/2200], fmt.Sprint("q", n%2200), tool))
		}
		smpInsert(t, st, traces...)
		if err := st.AddUser(ctx, "alice", RoleReviewer); err != nil {
			t.Fatal(err)
		}
		type item struct {
			row           int64
			trace, hash   string
			tool, cohort  string
			ts            sql.NullInt64
			turn, inBatch int
		}
		read := func() []item {
			rows, err := st.r.QueryContext(ctx, `SELECT i.rowid, i.trace_id, i.turn, i.input_hash, i.first_tool, i.ts_unix, i.in_batch FROM items i`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var out []item
			for rows.Next() {
				var it item
				if err := rows.Scan(&it.row, &it.trace, &it.turn, &it.hash, &it.tool, &it.ts, &it.inBatch); err != nil {
					t.Fatal(err)
				}
				out = append(out, it)
			}
			slices.SortFunc(out, func(a, b item) int {
				ca := sampling.Candidate{TraceID: a.trace, Turn: a.turn, TS: a.ts.Int64, HasTS: a.ts.Valid}
				cb := sampling.Candidate{TraceID: b.trace, Turn: b.turn, TS: b.ts.Int64, HasTS: b.ts.Valid}
				if sampling.Earlier(ca, cb) {
					return -1
				}
				return 1
			})
			return out
		}
		ids, err := queryStrings(ctx, st.r, `SELECT id FROM items WHERE rowid % 9 = 4`)
		if err != nil {
			t.Fatal(err)
		}
		var batch []BatchItem
		for _, id := range ids {
			batch = append(batch, BatchItem{ItemID: id, Reviewers: []string{"alice"}})
		}
		if err := st.CreateBatch(ctx, NewBatch{Name: "b1", Seed: 1, PerItem: 1, Items: batch}); err != nil {
			t.Fatal(err)
		}
		items := read()
		digest := func(s *sampling.Sampler) string {
			got, err := s.Result(sampling.AllocProportional, 1)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for _, c := range got.Items {
				fmt.Fprintln(&b, c.Row, c.Stratum)
			}
			fmt.Fprintln(&b, got.Strata, s.Duplicates(), s.Excluded())
			return b.String()
		}
		dups, excl := 0, 0
		for _, tc := range []struct {
			f    CandidateFilter
			n    int
			seed int64
		}{
			{CandidateFilter{By: "tool", ExcludeSampled: true}, 60, 1},
			{CandidateFilter{By: "tool"}, 60, 1},
			{CandidateFilter{ExcludeSampled: true}, 5000, 2},
			{CandidateFilter{By: "tool", ExcludeSampled: true, Turns: sampling.TurnsCalls, Since: day.Add(10 * time.Minute)}, 25, -3},
			{CandidateFilter{By: "tool", ExcludeSampled: true, Where: []sampling.Condition{{Key: "tool", Value: "zap"}}}, 10, 4},
		} {
			want := sampling.NewSampler(tc.seed, tc.n, true)
			var excluded []string
			for _, it := range items {
				if it.inBatch == 1 && tc.f.ExcludeSampled {
					excluded = append(excluded, it.hash)
				}
			}
			want.Exclude(excluded)
			for _, it := range items {
				switch {
				case it.inBatch == 1 && tc.f.ExcludeSampled,
					tc.f.Turns == sampling.TurnsCalls && it.tool == "(none)",
					!tc.f.Since.IsZero() && (!it.ts.Valid || it.ts.Int64 < tc.f.Since.Unix()),
					len(tc.f.Where) > 0 && it.tool != tc.f.Where[0].Value:
					continue
				}
				stratum := ""
				if tc.f.By == "tool" {
					stratum = it.tool
				}
				want.Offer(sampling.Candidate{Row: it.row, InputHash: it.hash, Stratum: stratum})
			}
			got := sampling.NewSampler(tc.seed, tc.n, true)
			if err := st.DrawCandidates(ctx, tc.f, got); err != nil {
				t.Fatal(err)
			}
			if g, w := digest(got), digest(want); g != w {
				t.Errorf("%+v, n %d: drew\n%s\nthe ordered scan drew\n%s", tc.f, tc.n, g, w)
			}
			dups, excl = dups+want.Duplicates(), excl+want.Excluded()
		}
		if dups == 0 || excl == 0 {
			t.Errorf("%d duplicates, %d excluded in all: want some of each", dups, excl)
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := st.DrawCandidates(cctx, CandidateFilter{By: "tool", ExcludeSampled: true}, sampling.NewSampler(1, 5, true)); !errors.Is(err, context.Canceled) {
			t.Errorf("a cancelled scan: %v", err)
		}
	})
}
