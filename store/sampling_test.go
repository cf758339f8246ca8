package store

import (
	"cmp"
	"context"
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

func smpScan(t *testing.T, st *Store, f CandidateFilter) []string {
	t.Helper()
	var rows []int64
	var strata []string
	err := st.ScanCandidates(context.Background(), f, func(row int64, stratum string) error {
		rows = append(rows, row)
		strata = append(strata, stratum)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	details, err := st.CandidatesByRow(context.Background(), rows)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, r := range rows {
		out = append(out, details[r].TraceID+":"+strata[i])
	}
	return out
}

func TestScanCandidatesOrderAndFilters(t *testing.T) {
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
			// Timestamped first by (ts, trace id), then the one without.
			{CandidateFilter{}, "tr_z: tr_b: tr_c: tr_a: tr_0:"},
			{CandidateFilter{By: "tool"}, "tr_z:(none) tr_b:(none) tr_c:refund tr_a:lookup tr_0:refund"},
			{CandidateFilter{By: "meta.cohort"}, "tr_z:billing tr_b:shipping tr_c:billing tr_a:billing tr_0:(unset)"},
			{CandidateFilter{Where: []sampling.Condition{{Key: "meta.cohort", Value: "billing"}, {Key: "tool", Value: "refund"}}}, "tr_c:"},
			{CandidateFilter{Turns: sampling.TurnsNoCalls}, "tr_z: tr_b:"},
			{CandidateFilter{Turns: sampling.TurnsCalls}, "tr_c: tr_a: tr_0:"},
			{CandidateFilter{Since: day.Add(time.Hour), Until: day.Add(2 * time.Hour)}, "tr_b: tr_c:"},
			{CandidateFilter{Where: []sampling.Condition{{Key: "meta.cohort", Value: "nope"}}}, ""},
		}
		for _, tc := range tests {
			if got := strings.Join(smpScan(t, st, tc.f), " "); got != tc.want {
				t.Errorf("%+v: got %q, want %q", tc.f, got, tc.want)
			}
		}
		if err := st.ScanCandidates(context.Background(), CandidateFilter{By: "color"}, func(int64, string) error { return nil }); err == nil {
			t.Error("--by color: no error")
		}
		if err := st.ScanCandidates(context.Background(), CandidateFilter{Turns: "some"}, func(int64, string) error { return nil }); err == nil {
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

// The scan reads in runs, the timestamped items in two parts at once:
// every item still comes once, in order, and an error from fn (or a
// cancelled context) ends the scan with it.
func TestScanCandidatesInRunsAndParts(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		day := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
		var traces []trace.Trace
		var want []string
		for i := range 4200 {
			// Inserted out of order; every 7th shares a timestamp with
			// another, every 100th has none.
			n := (i * 7919) % 4200
			ts := day.Add(time.Duration(n-n%7/6) * time.Minute)
			if n%100 == 99 {
				ts = time.Time{}
			}
			tool := []string{"", "refund", "lookup"}[n%3]
			traces = append(traces, smpStoreTrace(fmt.Sprintf("tr_%05d", n), ts, "", fmt.Sprint("q", n), tool))
		}
		smpInsert(t, st, traces...)
		for _, tr := range traces {
			stratum := "(none)"
			if c := tr.Messages[1].ToolCalls; len(c) > 0 {
				stratum = c[0].Name
			}
			want = append(want, fmt.Sprintf("%d %s:%s", tr.Timestamp.Unix(), tr.ID, stratum))
		}
		sortByTimeThenID(want)
		got := smpScan(t, st, CandidateFilter{By: "tool"})
		if len(got) != len(want) {
			t.Fatalf("scanned %d items, want %d", len(got), len(want))
		}
		for i := range want {
			if _, w, _ := strings.Cut(want[i], " "); got[i] != w {
				t.Fatalf("item %d: %s, want %s", i, got[i], w)
			}
		}
		ctx := context.Background()
		stop := errors.New("stop")
		n := 0
		err := st.ScanCandidates(ctx, CandidateFilter{}, func(int64, string) error {
			if n++; n == 3000 {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) || n != 3000 {
			t.Errorf("fn failing at row 3000: %v after %d rows", err, n)
		}
		cctx, cancel := context.WithCancel(ctx)
		n = 0
		err = st.ScanCandidates(cctx, CandidateFilter{}, func(int64, string) error {
			if n++; n == 10 {
				cancel()
			}
			return nil
		})
		if !errors.Is(err, context.Canceled) || n >= len(want) {
			t.Errorf("cancelled at row 10: %v after %d rows", err, n)
		}
	})
}

// sortByTimeThenID sorts "unix id:stratum" lines as the scan orders items:
// timestamped (by time, then id) before those without (unix time of the
// zero time, by id).
func sortByTimeThenID(lines []string) {
	zero := fmt.Sprint(time.Time{}.Unix())
	key := func(s string) (bool, int64, string) {
		u, rest, _ := strings.Cut(s, " ")
		var v int64
		fmt.Sscan(u, &v)
		return u == zero, v, rest
	}
	slices.SortFunc(lines, func(a, b string) int {
		za, va, ra := key(a)
		zb, vb, rb := key(b)
		switch {
		case za != zb:
			if za {
				return 1
			}
			return -1
		case !za && va != vb:
			return cmp.Compare(va, vb)
		}
		return strings.Compare(ra, rb)
	})
}
