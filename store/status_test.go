package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/review"
)

func TestStatusViews(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		ctx := context.Background()
		item := disputedItem(t, st) // alice and bob disagree on args; carol is the lead
		_ = item

		lead, err := st.Status(ctx, StatusQuery{As: "carol"})
		if err != nil {
			t.Fatal(err)
		}
		if lead.View != ViewLead || len(lead.Batches) != 1 || len(lead.Batches[0].Reviewers) != 2 || lead.Agreement == nil {
			t.Fatalf("lead view: %+v", lead)
		}
		b := lead.Batches[0]
		if b.Totals.Submitted != 2 || b.Items.Items != 1 || *b.Items.Disputed != 1 || *b.Items.Gold != 0 || lead.Disputes["args"] != 1 {
			t.Errorf("lead counts: %+v %+v %v", b.Totals, b.Items, lead.Disputes)
		}
		a := lead.Agreement
		if len(a.Pairs) != 1 || *a.Tool != 1 || *a.Exact != 0 || a.Args.Pairs != 1 || a.Args.Agreed != 0 {
			t.Errorf("agreement: %+v", a)
		}

		rev, err := st.Status(ctx, StatusQuery{As: "alice"})
		if err != nil {
			t.Fatal(err)
		}
		if rev.View != ViewReviewer || rev.Agreement != nil || rev.Disputes != nil {
			t.Fatalf("reviewer sees agreement: %+v", rev)
		}
		if rb := rev.Batches[0]; len(rb.Reviewers) != 1 || rb.Reviewers[0].Reviewer != "alice" || rb.Items.Disputed != nil || rb.Items.Settled != 1 {
			t.Errorf("reviewer batch: %+v", rb)
		}
		raw, _ := json.Marshal(rev)
		for _, leak := range []string{"bob", `"disputed"`, `"agreed"`, `"gold"`, "ORD-2", "kappa"} {
			if strings.Contains(string(raw), leak) {
				t.Errorf("reviewer view mentions %q: %s", leak, raw)
			}
		}

		tot, err := st.Status(ctx, StatusQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if tot.View != ViewTotals || len(tot.Batches[0].Reviewers) != 0 || tot.Totals.Submitted != 2 || tot.Items.Settled != 1 || tot.Agreement != nil {
			t.Errorf("totals view: %+v", tot)
		}
		if _, err := st.Status(ctx, StatusQuery{As: "zed"}); !errors.Is(err, ErrNotFound) {
			t.Errorf("unknown user: %v", err)
		}
		if _, err := st.Status(ctx, StatusQuery{Batch: "nope"}); !errors.Is(err, ErrNotFound) {
			t.Errorf("unknown batch: %v", err)
		}
	})
}

func TestStatusEmpty(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		s, err := st.Status(context.Background(), StatusQuery{})
		if err != nil || len(s.Batches) != 0 || s.Items.Items != 0 || s.Totals.MedianSeconds != nil {
			t.Fatalf("%+v %v", s, err)
		}
	})
}

func TestSecondsMedian(t *testing.T) {
	for _, tt := range []struct {
		xs   []int
		want float64
	}{{[]int{5}, 5}, {[]int{9, 1, 5}, 5}, {[]int{4, 1, 3, 2}, 2.5}, {[]int{7, 7, 1, 7}, 7}, {[]int{1, 1, 9, 9}, 5}} {
		h := secondsHistogram{}
		for _, x := range tt.xs {
			h[x]++
		}
		if got := h.median(); got == nil || *got != tt.want {
			t.Errorf("median %v = %v, want %v", tt.xs, got, tt.want)
		}
	}
	if (secondsHistogram{}).median() != nil {
		t.Error("median of nothing")
	}
}

func TestStatusSeveralBatches(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		ctx := context.Background()
		disputedItem(t, st) // batch b1: alice and bob disagree
		tr := sampleTrace("tr_2")
		tr.Messages[0].Content = "where is my other package?"
		var item2 string
		err := st.WithTx(ctx, func(tx *Tx) error {
			if _, err := st.InsertTrace(ctx, tx, tr, "test"); err != nil {
				return err
			}
			if err := tx.QueryRowContext(ctx, `SELECT id FROM items WHERE trace_id = 'tr_2' ORDER BY turn LIMIT 1`).Scan(&item2); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO batches(name, seed, per_item, created_at) VALUES ('b2', 1, 2, 'now')`); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO assignments(item_id, reviewer, batch, position, updated_at) VALUES (?, 'alice', 'b2', 0, 'now'), (?, 'bob', 'b2', 0, 'now')`, item2, item2)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		l := callLabel(item2, "alice", `{"order_id":"ORD-9"}`)
		l.Seconds = 17
		if _, err := st.SubmitLabel(ctx, l); err != nil {
			t.Fatal(err)
		}
		s, err := st.Status(ctx, StatusQuery{As: "carol"})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Batches) != 2 || s.Items.Items != 2 || s.Items.Open != 1 || *s.Items.Disputed != 1 || s.Totals.Submitted != 3 || s.Totals.Pending != 1 {
			t.Fatalf("all batches: %+v %+v", s.Items, s.Totals)
		}
		b2 := s.Batches[1]
		if b2.Batch != "b2" || b2.Items.Open != 1 || b2.Totals.Submitted != 1 || *b2.Totals.MedianSeconds != 17 || len(b2.Reviewers) != 2 {
			t.Errorf("b2: %+v", b2)
		}
		if a := s.Agreement; a.Items != 1 || len(a.Pairs) != 1 {
			t.Errorf("agreement counts only items with two labels: %+v", a)
		}
		one, err := st.Status(ctx, StatusQuery{As: "carol", Batch: "b1"})
		if err != nil {
			t.Fatal(err)
		}
		if len(one.Batches) != 1 || one.Items.Items != 1 || *one.Items.Disputed != 1 || one.Totals.Submitted != 2 || *one.Totals.MedianSeconds != 0 {
			t.Errorf("batch b1 only: %+v %+v", one.Items, one.Totals)
		}
	})
}

// The lead's agreement numbers come from a fast scan that decodes calls
// itself and shares the decoding of byte-identical calls: they must equal
// review.Agree over the labels as the store reads them everywhere else,
// including calls stored in other spellings of the same JSON.
func TestStatusAgreementMatchesLabels(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		ctx := context.Background()
		statusFixture(t, st, 300)
		for _, u := range []struct{ item, reviewer, calls string }{
			{"it_1", "bob", ` [ {"args": {"n": 1, "id": "A1"}, "tool": "tool_1"} ] `}, // same calls as alice, other bytes
			{"it_3", "bob", `[{"tool":"tool\u005f3","args":{"id":"A3","n":3}}]`},      // escaped tool name
			{"it_4", "alice", `[{"tool":"tool_4","args":{"id":"A4","n":4.0}}]`},       // 4.0 = 4
			{"it_5", "bob", `[{"tool":"tool_5","args":{"id":"A5","n":0}},{"tool":"tool_6","args":{}}]`},
		} {
			if _, err := st.testW(t).ExecContext(ctx, `UPDATE labels SET calls = ? WHERE item_id = ? AND reviewer = ?`, u.calls, u.item, u.reviewer); err != nil {
				t.Fatal(err)
			}
		}
		s, err := st.Status(ctx, StatusQuery{As: "carol"})
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]string, 300)
		for i := range ids {
			ids[i] = fmt.Sprintf("it_%d", i)
		}
		// The reference: every item's labels read the plain way (one query
		// each, calls decoded by encoding/json).
		var plain [][]review.Label
		for _, id := range ids {
			ls, err := itemLabels(ctx, st.r, id)
			if err != nil {
				t.Fatal(err)
			}
			if len(ls) > 0 {
				plain = append(plain, ls)
			}
		}
		want := review.AgreeWithin(plain, review.LiveBootstrap)
		if !reflect.DeepEqual(*s.Agreement, want) {
			t.Fatalf("status agreement\n%+v\nreview.Agree over the labels\n%+v", *s.Agreement, want)
		}
		// LabelsOfItems (the export's agreement) reads the same labels, with
		// the fields agreement needs, in item and reviewer order.
		fast, err := st.LabelsOfItems(ctx, append(ids[:150:150], "it_missing"))
		if err != nil {
			t.Fatal(err)
		}
		sort.Slice(plain, func(i, j int) bool { return plain[i][0].Item < plain[j][0].Item })
		var firstHalf [][]review.Label
		for _, ls := range plain {
			if n, _ := strconv.Atoi(strings.TrimPrefix(ls[0].Item, "it_")); n < 150 {
				firstHalf = append(firstHalf, ls)
			}
		}
		if len(fast) != len(firstHalf) {
			t.Fatalf("LabelsOfItems: %d items, want %d", len(fast), len(firstHalf))
		}
		for i := range fast {
			if len(fast[i]) != len(firstHalf[i]) {
				t.Fatalf("item %s: %d labels, want %d", firstHalf[i][0].Item, len(fast[i]), len(firstHalf[i]))
			}
			for j, l := range fast[i] {
				p := firstHalf[i][j]
				if l.Item != p.Item || l.Reviewer != p.Reviewer || l.Decision != p.Decision || !review.CallsEqual(l.Calls, p.Calls) {
					t.Fatalf("LabelsOfItems label %d of %s = %+v, want %+v", j, p.Item, l, p)
				}
			}
		}
		if got, want := review.Agree(fast), review.Agree(firstHalf); !reflect.DeepEqual(got, want) {
			t.Fatalf("agreement over LabelsOfItems\n%+v\nover the plain labels\n%+v", got, want)
		}
		if want.Exact == nil || *want.Exact == 1 || *want.Exact < 0.5 {
			t.Fatalf("fixture should mix agreement and disputes: %+v", want)
		}
	})
}

// A project with one batch counts its items from scans matched in Go
// (scanOneBatchItems); the general path joins per item. Both must give the
// same counts: items in every state, new items in the batch, items no
// batch drew, gold, and a batch still being written (left out).
func TestStatusOneBatchItemCountsMatchTheGeneralPath(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		ctx := context.Background()
		statusFixture(t, st, 60)
		w := st.testW(t)
		for _, q := range []string{
			`UPDATE items SET status = 'labeling' WHERE id IN ('it_2', 'it_3')`,
			`UPDATE items SET status = 'sampled' WHERE id = 'it_4'`,
			`UPDATE items SET status = 'new', in_batch = 0 WHERE id = 'it_5'`, // in the batch, yet new
			`UPDATE items SET status = 'adjudicated' WHERE id = 'it_6'`,
			`INSERT INTO items(id, trace_id, turn, input_hash, first_tool, n_calls, status, updated_at)
				VALUES ('it_free', 'tr_bench', 900, 'hf', '', 0, 'new', 'now'), ('it_w', 'tr_bench', 901, 'hw', '', 0, 'sampled', 'now')`,
			`UPDATE items SET in_batch = 1 WHERE id = 'it_w'`,
			`INSERT INTO gold(item_id, status, decision, updated_at) VALUES ('it_w', 'agreed', 'call', 'now')`,
			`INSERT INTO batches(name, seed, per_item, created_at, state) VALUES ('bw', 1, 2, 'now', 'writing')`,
			`INSERT INTO assignments(item_id, reviewer, batch, position, status, updated_at) VALUES ('it_w', 'alice', 'bw', 0, 'pending', 'now')`,
		} {
			if _, err := w.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		one := statusScan{items: map[string]*itemTally{}, ready: whileWriting}
		if err := st.scanOneBatchItems(ctx, &one, "b1"); err != nil {
			t.Fatal(err)
		}
		general := statusScan{assignments: map[statusKey]int{}, items: map[string]*itemTally{}, seconds: map[statusKey]secondsHistogram{}, ready: whileWriting}
		if err := st.scanBatches(ctx, &general, "", false); err != nil {
			t.Fatal(err)
		}
		// 12 disputed (i % 10 in 0, 1), 48 agreed with gold of which
		// it_2…it_6 changed state (keeping their gold rows); it_w's batch
		// is being written.
		want := itemTally{agreed: 48 - 5, disputed: 12, adjudicated: 1, open: 4, gold: 48}
		for _, b := range []string{"", "b1"} {
			if got := *one.items[b]; got != want {
				t.Errorf("batch %q: one-batch path %+v, want %+v", b, got, want)
			}
		}
		// The general path leaves out items in a batch that are new (it
		// reads items that are not): the same counts but for it_5.
		g := *general.items[""]
		if g.open != want.open-1 || g.agreed != want.agreed || g.disputed != want.disputed || g.adjudicated != want.adjudicated || g.gold != want.gold-1 {
			t.Errorf("general path %+v, one-batch path %+v", g, want)
		}
	})
}

// With one batch and none being written, status counts the batch's items
// by status from items_status (countOneBatchItems), trusting that the
// items that left 'new' are the assigned ones; it gives the counts of
// the item-by-item path, and when a store breaks that rule (written
// behind goldtrace's back) status falls back to that path, and check
// names the items that break it.
func TestStatusOneBatchCountsByStatus(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		ctx := context.Background()
		statusFixture(t, st, 60)
		w := st.testW(t)
		exec := func(qs ...string) {
			t.Helper()
			for _, q := range qs {
				if _, err := w.ExecContext(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
		}
		exec(`UPDATE items SET status = 'labeling' WHERE id IN ('it_2', 'it_3')`,
			`UPDATE items SET status = 'sampled' WHERE id = 'it_4'`,
			`UPDATE items SET status = 'adjudicated' WHERE id = 'it_6'`,
			`INSERT INTO items(id, trace_id, turn, input_hash, first_tool, n_calls, status, updated_at)
				VALUES ('it_free', 'tr_bench', 900, 'hf', '', 0, 'new', 'now')`)
		counts := func() (fast itemTally, ok bool, slow itemTally, scanned itemTally) {
			t.Helper()
			fast, ok, err := st.countOneBatchItems(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// whileWriting (no batch is being written) makes
			// scanOneBatchItems match item by item.
			item := statusScan{items: map[string]*itemTally{}, ready: whileWriting}
			one := statusScan{items: map[string]*itemTally{}}
			for _, sc := range []*statusScan{&item, &one} {
				if err := st.scanOneBatchItems(ctx, sc, "b1"); err != nil {
					t.Fatal(err)
				}
				if *sc.items[""] != *sc.items["b1"] {
					t.Fatalf("all %+v, batch b1 %+v", *sc.items[""], *sc.items["b1"])
				}
			}
			return fast, ok, *item.items[""], *one.items[""]
		}
		want := itemTally{agreed: 48 - 4, disputed: 12, adjudicated: 1, open: 3, gold: 48}
		if fast, ok, slow, got := counts(); !ok || fast != want || slow != want || got != want {
			t.Errorf("by status %+v (%v), item by item %+v, status %+v; want %+v", fast, ok, slow, got, want)
		}
		if p, err := st.Check(ctx); err != nil || len(p) != 0 {
			t.Errorf("check: %v %v", p, err)
		}
		// it_5 (agreed, with gold) made new again behind the store's back.
		exec(`UPDATE items SET status = 'new', in_batch = 0 WHERE id = 'it_5'`)
		want = itemTally{agreed: 48 - 5, disputed: 12, adjudicated: 1, open: 4, gold: 48}
		if _, ok, slow, got := counts(); ok || slow != want || got != want {
			t.Errorf("with a new item assigned: by status trusted (%v), item by item %+v, status %+v; want %+v", ok, slow, got, want)
		}
		exec(`UPDATE items SET status = 'sampled', in_batch = 1 WHERE id = 'it_free'`)
		p, err := st.Check(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var found []string
		for _, x := range p {
			found = append(found, x.Kind+": "+x.Detail)
		}
		sort.Strings(found)
		wantFound := []string{
			"batch: item it_5 is new but assigned to alice in batch b1",
			"batch: item it_5 is new but assigned to bob in batch b1",
			"batch: item it_free is sampled but assigned to no one",
			"gold: gold answer of it_5 is of an item no batch holds",
		}
		if !reflect.DeepEqual(found, wantFound) {
			t.Errorf("check found %q, want %q", found, wantFound)
		}
	})
}

// A lead's status reads the labels as two halves by rowid at once; joined,
// they must give the items in the order of one scan, each item's labels
// in order, when every item has a label in each half: bob's labels all
// come after alice's. The bootstrap draws items by their place, so any
// other order changes the intervals.
func TestStatusLabelHalvesJoinInRowOrder(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		ctx := context.Background()
		statusFixture(t, st, 300)
		w := st.testW(t)
		for _, q := range []string{
			`DELETE FROM labels WHERE reviewer = 'bob'`,
			`INSERT INTO labels(item_id, reviewer, decision, calls, seconds, submitted_at)
				SELECT id, 'bob', CASE WHEN turn % 4 = 0 THEN 'no_call' ELSE 'call' END,
					CASE WHEN turn % 4 = 0 THEN '[]' ELSE '[{"tool":"tool_' || (turn % 7) || '","args":{"id":"A' || turn || '","n":' || (turn % 3) || '}}]' END,
					20, '2026-05-01T12:00:00Z'
				FROM items ORDER BY turn DESC`,
		} {
			if _, err := w.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		s, err := st.Status(ctx, StatusQuery{As: "carol"})
		if err != nil {
			t.Fatal(err)
		}
		var plain [][]review.Label // in the order of alice's labels, one query per item
		for i := range 300 {
			ls, err := itemLabels(ctx, st.r, fmt.Sprintf("it_%d", i))
			if err != nil {
				t.Fatal(err)
			}
			plain = append(plain, ls)
		}
		if want := review.AgreeWithin(plain, review.LiveBootstrap); !reflect.DeepEqual(*s.Agreement, want) {
			t.Fatalf("status agreement\n%+v\nreview.Agree over the labels in row order\n%+v", *s.Agreement, want)
		}
		// The lead's seconds come from the same scans; a reviewer's and
		// the totals view's from SQLite's count per reviewer and seconds.
		tot, err := st.Status(ctx, StatusQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(s.Totals, tot.Totals) || !reflect.DeepEqual(s.Batches[0].Totals, tot.Batches[0].Totals) {
			t.Errorf("lead totals %+v / %+v, totals view %+v / %+v", s.Totals, s.Batches[0].Totals, tot.Totals, tot.Batches[0].Totals)
		}
		for i, r := range []string{"alice", "bob"} {
			own, err := st.Status(ctx, StatusQuery{As: r})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := s.Batches[0].Reviewers[i], own.Batches[0].Reviewers[0]; !reflect.DeepEqual(got, want) || got.MedianSeconds == nil {
				t.Errorf("%s: lead sees %+v, the reviewer %+v", r, got, want)
			}
		}
		if m := *s.Batches[0].Reviewers[1].MedianSeconds; m != 20 {
			t.Errorf("bob's median %v s, want 20", m)
		}
		var g labelGrouper
		for _, row := range []string{"x\x1fcall\x1f\x1falice\x1f[]", "x\x1fcall\x1f1a\x1falice\x1f[]", "x\x1fcall\x1f7"} {
			if err := g.addTimedRow([]byte(row)); err == nil {
				t.Errorf("row %q: no error", row)
			}
		}
		// Items first seen in the second half follow the first half's.
		var a, b labelGrouper
		for _, row := range []string{"x\x1fcall\x1falice\x1f[]", "y\x1fcall\x1falice\x1f[]"} {
			if err := a.addRow([]byte(row)); err != nil {
				t.Fatal(err)
			}
		}
		for _, row := range []string{"z\x1fno_call\x1fbob\x1f[]", "x\x1fno_call\x1fbob\x1f[]", "z\x1fcall\x1fcarol\x1f[]"} {
			if err := b.addRow([]byte(row)); err != nil {
				t.Fatal(err)
			}
		}
		var got []string
		for _, ls := range a.join(&b) {
			var rs []string
			for _, l := range ls {
				rs = append(rs, l.Reviewer)
			}
			got = append(got, ls[0].Item+":"+strings.Join(rs, ","))
		}
		if want := []string{"x:alice,bob", "y:alice", "z:bob,carol"}; !reflect.DeepEqual(got, want) {
			t.Errorf("joined %v, want %v", got, want)
		}
		// alice took x's label back and submitted it again between the
		// halves' reads: the second half's row (no call, 9 s) replaces the
		// first's (call, 30 s), in the labels and the seconds.
		var c labelHalves
		for i, rows := range [][]string{{"x\x1fcall\x1f30\x1falice\x1f[]", "x\x1fcall\x1f5\x1fbob\x1f[]"}, {"x\x1fno_call\x1f9\x1falice\x1f[]"}} {
			for _, row := range rows {
				if err := c[i].addTimedRow([]byte(row)); err != nil {
					t.Fatal(err)
				}
			}
		}
		sc := statusScan{seconds: map[statusKey]secondsHistogram{}}
		c.join(&sc, "b1")
		if ls := sc.labels; len(ls) != 1 || len(ls[0]) != 2 || ls[0][0].Reviewer != "alice" || ls[0][0].Decision != "no_call" || ls[0][1].Reviewer != "bob" {
			t.Errorf("joined %+v, want alice's second label and bob's", ls)
		}
		if m := sc.seconds[statusKey{batch: "b1", reviewer: "alice"}].median(); m == nil || *m != 9 {
			t.Errorf("alice's median %v, want 9 s", m)
		}
	})
}

// Lead statuses computed at once (a server with several leads, or one
// asking per batch) never wait on each other for the read connections
// whole-table scans share: each scan holds one, and none waits for
// another while holding it.
func TestStatusLeadsAtOnce(t *testing.T) {
	st := openTemp(t)
	statusFixture(t, st, 200)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	want, err := st.computeStatus(ctx, StatusQuery{As: "carol"})
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 3*scanConns)
	for range cap(errs) {
		go func() {
			got, err := st.computeStatus(ctx, StatusQuery{As: "carol"})
			if err == nil && !reflect.DeepEqual(got, want) {
				err = errors.New("a status computed at once with others differs")
			}
			errs <- err
		}()
	}
	for range cap(errs) {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
