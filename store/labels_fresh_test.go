package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/review"
)

// freshProject is streamProject with alice's draft of the first item and
// bob's skip (with a reason) of the second, and every third item disputed
// (bob calls a tool there).
func freshProject(t *testing.T, st *Store) ([]string, []review.Label) {
	t.Helper()
	ctx := context.Background()
	labels := streamProject(t, st)
	ids := allItems(t, st)
	if err := st.SaveDraft(ctx, ids[0], "alice", []byte(`{"rationale":"half"}`), 7); err != nil {
		t.Fatal(err)
	}
	if err := st.SkipItem(ctx, ids[1], "bob", "cannot tell"); err != nil {
		t.Fatal(err)
	}
	for i := range labels {
		if l := &labels[i]; l.Reviewer == "bob" && (i/2)%3 == 0 {
			l.Decision, l.Calls = review.DecisionCall, []review.LabelCall{{Tool: "get_order_status", Args: []byte(`{"order_id":"ORD-1"}`)}}
		}
	}
	return ids, labels
}

// labelsState is what a labels import may change, row by row, without
// times.
func labelsState(t *testing.T, st *Store) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT id, status FROM items ORDER BY id`,
		`SELECT item_id, reviewer, status, skip_reason FROM assignments ORDER BY item_id, reviewer`,
		`SELECT item_id, reviewer, decision, calls, rationale FROM labels ORDER BY item_id, reviewer`,
		`SELECT item_id, status, decision, calls FROM gold ORDER BY item_id`,
		`SELECT item_id, kinds FROM disputes ORDER BY item_id`,
		`SELECT item_id, reviewer, body, seconds FROM drafts ORDER BY item_id, reviewer`,
	} {
		rows, err := st.r.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				if s, ok := v.([]byte); ok {
					vals[i] = string(s)
				}
			}
			fmt.Fprintln(&b, vals...)
		}
		rows.Close()
		fmt.Fprintln(&b, "--")
	}
	return b.String()
}

// streamRounds writes rounds of labels through a LabelStream's writer,
// with every round's befores read (and its rows made) before the first is
// written, so the writer finds items it has written since they were read.
// On SQLite each round is written before the next is sent, and between(r)
// runs after round r is; then the stream is closed, or given up (giveUp).
// It returns the stream's error.
func streamRounds(t *testing.T, st *Store, rounds [][]review.Label, between func(r int), giveUp bool) (*LabelStream, error) {
	t.Helper()
	ctx, stop := context.WithCancelCause(context.Background())
	defer stop(nil)
	ls := st.LabelStream(ctx)
	prepared := make([]CheckedLabels, len(rounds))
	names := map[string]string{}
	for r, labels := range rounds {
		var ids []string
		for _, l := range labels {
			ids = append(ids, l.Item)
		}
		befores, err := readBefores(ctx, st.r, ids, &targetStamp{epoch: ls.fresh.stamp(), names: names})
		if err != nil {
			t.Fatal(err)
		}
		prepared[r] = CheckedLabels{Labels: labels}
		st.prepare(&prepared[r], befores)
	}
	in := make(chan CheckedLabels)
	done := make(chan error, 1)
	go func() {
		_, err := st.submitFed(ctx, &labelFeed{in: in, owned: true, fresh: ls.fresh}, labelsPace)
		done <- err
	}()
	for r, labels := range rounds {
		select {
		case in <- prepared[r]:
		case err := <-done:
			return ls, err
		}
		last := labels[len(labels)-1]
		for written := false; !written; time.Sleep(2 * time.Millisecond) {
			select {
			case err := <-done:
				return ls, err
			default:
			}
			_, err := st.Label(ctx, last.Item, last.Reviewer)
			written = err == nil
		}
		if between != nil {
			between(r)
		}
	}
	if giveUp {
		stop(errors.New("a later line is invalid"))
	} else {
		close(in)
	}
	return ls, <-done
}

// submitStream writes labels through LabelStream.Submit, in rounds of
// ten, as labels import does.
func submitStream(t *testing.T, st *Store, labels []review.Label) *LabelStream {
	t.Helper()
	ctx := context.Background()
	ls := st.LabelStream(ctx)
	in := make(chan CheckedLabels, len(labels))
	for start := 0; start < len(labels); start += 10 {
		in <- CheckedLabels{Labels: labels[start:min(start+10, len(labels))]}
	}
	close(in)
	if _, err := ls.Submit(ctx, in); err != nil {
		t.Fatal(err)
	}
	return ls
}

// A labels import alone on the database writes from what was read
// beside its writer, reading nothing again under the write lock, and
// leaves the database as submitting the same labels in one call does;
// given up, it takes back everything (the draft and the skip its labels
// replaced come back).
func TestLabelStreamWritesFromItsChecksWhenAlone(t *testing.T) {
	st := openEngine(t, "sqlite")
	_, labels := freshProject(t, st)
	control := openEngine(t, "sqlite")
	_, controlLabels := freshProject(t, control)
	if _, err := control.SubmitLabels(context.Background(), controlLabels); err != nil {
		t.Fatal(err)
	}
	before := labelsState(t, st)
	// Alice's label of an item in one round, bob's in the next.
	rounds := [][]review.Label{labels[:11], labels[11:]}
	ls, err := streamRounds(t, st, rounds, nil, true)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a stream given up: %v", err)
	}
	if got := labelsState(t, st); got != before {
		t.Errorf("after the take-back:\n%s\nbefore:\n%s", got, before)
	}
	if ls.fresh.fromChecks.Load() == 0 || ls.fresh.reread.Load() != 0 {
		t.Errorf("groups written from what was read beside %d, read again %d", ls.fresh.fromChecks.Load(), ls.fresh.reread.Load())
	}
	want := labelsState(t, control)
	if _, err = streamRounds(t, st, rounds, nil, false); err != nil {
		t.Fatal(err)
	}
	if got := labelsState(t, st); got != want {
		t.Errorf("after the stream:\n%s\nsubmitted at once:\n%s", got, want)
	}
	// The same through Submit, as labels import writes.
	st = openEngine(t, "sqlite")
	freshProject(t, st)
	ls = submitStream(t, st, labels)
	if got := labelsState(t, st); got != want {
		t.Errorf("after Submit:\n%s\nsubmitted at once:\n%s", got, want)
	}
	if ls.fresh.fromChecks.Load() == 0 || ls.fresh.reread.Load() != 0 {
		t.Errorf("Submit: groups written from what was read beside %d, read again %d", ls.fresh.fromChecks.Load(), ls.fresh.reread.Load())
	}
	// Two items' labels crossed ([a0 a1 b0 b1 …]): an item's second label
	// is in a later group of the same transaction, which finds the status
	// the earlier one left it in (held until the transaction's end).
	crossed := slices.Clone(labels)
	for i := 1; i+1 < len(crossed); i += 4 {
		crossed[i], crossed[i+1] = crossed[i+1], crossed[i]
	}
	control = openEngine(t, "sqlite")
	freshProject(t, control)
	if _, err := control.SubmitLabels(context.Background(), crossed); err != nil {
		t.Fatal(err)
	}
	st = openEngine(t, "sqlite")
	freshProject(t, st)
	ls = submitStream(t, st, crossed)
	if got, want := labelsState(t, st), labelsState(t, control); got != want {
		t.Errorf("crossed, after Submit:\n%s\nsubmitted at once:\n%s", got, want)
	}
	if ls.fresh.fromChecks.Load() == 0 || ls.fresh.reread.Load() != 0 {
		t.Errorf("crossed: groups written from what was read beside %d, read again %d", ls.fresh.fromChecks.Load(), ls.fresh.reread.Load())
	}
}

// On PostgreSQL a LabelStream writes as SubmitCheckedLabelStream does.
func TestLabelStreamOnPostgres(t *testing.T) {
	st := openEngine(t, "postgres")
	_, labels := freshProject(t, st)
	control := openEngine(t, "postgres")
	_, controlLabels := freshProject(t, control)
	if _, err := control.SubmitLabels(context.Background(), controlLabels); err != nil {
		t.Fatal(err)
	}
	submitStream(t, st, labels)
	if got, want := labelsState(t, st), labelsState(t, control); got != want {
		t.Errorf("after Submit:\n%s\nsubmitted at once:\n%s", got, want)
	}
}

// What another writer commits between the checks and the writes (a
// reviewer of the same process, or of another connection) has the writer
// read everything again under the lock: a label the reviewer submitted
// meanwhile is refused and the import taken back, leaving the reviewer's
// submit; a draft the reviewer saved meanwhile on an assignment the import
// then submitted comes back when the import is given up.
func TestLabelStreamReadsAgainWhenAnotherWrote(t *testing.T) {
	for _, other := range []string{"same store", "another connection"} {
		t.Run(other, func(t *testing.T) {
			open := func(t *testing.T) (*Store, *Store, []string, []review.Label) {
				st := openEngine(t, "sqlite")
				ids, labels := freshProject(t, st)
				o := st
				if other == "another connection" {
					var err error
					if o, err = Open(context.Background(), st.Path()); err != nil {
						t.Fatal(err)
					}
					o.Now = st.Now
					t.Cleanup(func() { o.Close() })
				}
				return st, o, ids, labels
			}
			t.Run("refused", func(t *testing.T) {
				st, o, ids, labels := open(t)
				control := openEngine(t, "sqlite")
				freshProject(t, control)
				if _, err := control.SubmitLabel(context.Background(), labels[15]); err != nil {
					t.Fatal(err)
				}
				ls, err := streamRounds(t, st, [][]review.Label{labels[:11], labels[11:]}, func(r int) {
					if r == 0 {
						if _, err := o.SubmitLabel(context.Background(), labels[15]); err != nil {
							t.Fatal(err)
						}
					}
				}, false)
				var le *LabelError
				if !errors.As(err, &le) || le.Index != 15 || !errors.Is(err, ErrConflict) {
					t.Fatalf("the label %s/%s submitted meanwhile: %v", ids[7], "bob", err)
				}
				if got, want := labelsState(t, st), labelsState(t, control); got != want {
					t.Errorf("after the take-back:\n%s\nwith the reviewer's submit alone:\n%s", got, want)
				}
				if ls.fresh.reread.Load() == 0 {
					t.Error("no group was read again under the lock")
				}
			})
			t.Run("draft", func(t *testing.T) {
				st, o, ids, labels := open(t)
				draft := func(s *Store) {
					if err := s.SaveDraft(context.Background(), ids[8], "alice", []byte(`{"rationale":"meanwhile"}`), 3); err != nil {
						t.Fatal(err)
					}
				}
				control := openEngine(t, "sqlite")
				freshProject(t, control)
				draft(control)
				ls, err := streamRounds(t, st, [][]review.Label{labels[:11], labels[11:]}, func(r int) {
					if r == 0 {
						draft(o)
					}
				}, true)
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("a stream given up: %v", err)
				}
				if got, want := labelsState(t, st), labelsState(t, control); got != want {
					t.Errorf("after the take-back:\n%s\nwith the reviewer's draft alone:\n%s", got, want)
				}
				if ls.fresh.reread.Load() == 0 || ls.fresh.fromChecks.Load() == 0 {
					t.Errorf("groups written from the checks %d, read again %d", ls.fresh.fromChecks.Load(), ls.fresh.reread.Load())
				}
			})
		})
	}
}

// A stream's checks (Targets) see what LabelTargetsWith sees, and read for
// the writer at the same time: the preparer reads nothing again, and the
// database ends as submitting the labels at once leaves it.
func TestLabelStreamTargetsReadOnceForChecksAndWriter(t *testing.T) {
	ctx := context.Background()
	st := openEngine(t, "sqlite")
	ids, labels := freshProject(t, st)
	control := openEngine(t, "sqlite")
	_, controlLabels := freshProject(t, control)
	if _, err := control.SubmitLabels(ctx, controlLabels); err != nil {
		t.Fatal(err)
	}
	ls := st.LabelStream(ctx)
	asked := append(slices.Clone(ids), "it_missing", ids[0])
	got, err := ls.Targets(ctx, asked, ToolsetTools{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := st.LabelTargetsWith(ctx, asked, ToolsetTools{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Targets:\n%v\nLabelTargetsWith:\n%v", got, want)
	}
	ls = st.LabelStream(ctx)
	in := make(chan CheckedLabels, len(labels))
	for start := 0; start < len(labels); start += 10 {
		round := labels[start:min(start+10, len(labels))]
		var ids []string
		for _, l := range round {
			ids = append(ids, l.Item)
		}
		if _, err := ls.Targets(ctx, ids, ToolsetTools{}); err != nil {
			t.Fatal(err)
		}
		in <- CheckedLabels{Labels: round}
	}
	close(in)
	if _, err := ls.Submit(ctx, in); err != nil {
		t.Fatal(err)
	}
	if got, want := labelsState(t, st), labelsState(t, control); got != want {
		t.Errorf("after Submit:\n%s\nsubmitted at once:\n%s", got, want)
	}
	if n := ls.read.Load(); n != 0 {
		t.Errorf("the preparer read %d items again", n)
	}
	if ls.fresh.fromChecks.Load() == 0 || ls.fresh.reread.Load() != 0 {
		t.Errorf("groups written from what was read beside %d, read again %d", ls.fresh.fromChecks.Load(), ls.fresh.reread.Load())
	}
}

// Past aheadMax items kept for the preparer, the checks keep no more: the
// preparer reads the rest itself, and the labels are written all the same.
func TestLabelStreamKeepsAtMostAheadMax(t *testing.T) {
	defer func(was int) { aheadMax = was }(aheadMax)
	aheadMax = 3
	ctx := context.Background()
	st := openEngine(t, "sqlite")
	_, labels := freshProject(t, st)
	control := openEngine(t, "sqlite")
	_, controlLabels := freshProject(t, control)
	if _, err := control.SubmitLabels(ctx, controlLabels); err != nil {
		t.Fatal(err)
	}
	ls := st.LabelStream(ctx)
	var ids []string
	for _, l := range labels {
		ids = append(ids, l.Item)
	}
	if _, err := ls.Targets(ctx, ids, ToolsetTools{}); err != nil {
		t.Fatal(err)
	}
	if n := len(ls.ahead); n != aheadMax {
		t.Fatalf("%d befores kept, want %d", n, aheadMax)
	}
	in := make(chan CheckedLabels, 1)
	in <- CheckedLabels{Labels: labels}
	close(in)
	if _, err := ls.Submit(ctx, in); err != nil {
		t.Fatal(err)
	}
	if got, want := labelsState(t, st), labelsState(t, control); got != want {
		t.Errorf("after Submit:\n%s\nsubmitted at once:\n%s", got, want)
	}
	if n := ls.read.Load(); n == 0 {
		t.Error("the preparer read no item itself")
	}
}
