package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/internal/bulk"
	"github.com/goldtrace/goldtrace/review"
)

func noCallLabel(item, reviewer string) review.Label {
	return review.Label{Item: item, Reviewer: reviewer, Decision: review.DecisionNoCall, Rationale: "nothing to look up",
		SubmittedAt: time.Date(2026, 5, 2, 9, 0, 0, 0, time.UTC)}
}

func tableCounts(t *testing.T, st *Store) [5]int {
	t.Helper()
	var c [5]int
	err := st.r.QueryRow(`SELECT (SELECT count(*) FROM labels), (SELECT count(*) FROM gold), (SELECT count(*) FROM disputes),
		(SELECT count(*) FROM assignments WHERE status = 'submitted'), (SELECT count(*) FROM items WHERE status NOT IN ('new', 'sampled'))`).
		Scan(&c[0], &c[1], &c[2], &c[3], &c[4])
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Labels written in many short transactions are all undone when a later
// one fails: labels, gold, disputes, assignment and item states, and the
// drafts the submits removed come back as they were.
func TestSubmitLabelsFailingMidwayUndoesEverything(t *testing.T) {
	onEngines(t, testSubmitLabelsFailingMidwayUndoesEverything)
}

func testSubmitLabelsFailingMidwayUndoesEverything(t *testing.T, st *Store) {
	ctx := context.Background()
	ids := reviewersBatch(t, st, 20, "alice", "bob")
	if err := st.SaveDraft(ctx, ids[0], "alice", []byte(`{"rationale":"half"}`), 7); err != nil {
		t.Fatal(err)
	}
	before := tableCounts(t, st)
	var labels []review.Label
	for i, id := range ids {
		labels = append(labels, noCallLabel(id, "alice"))
		l := noCallLabel(id, "bob")
		if i%2 == 1 {
			l.Decision, l.Calls = review.DecisionCall, []review.LabelCall{{Tool: "get_order_status", Args: []byte(`{"order_id":"ORD-1"}`)}}
		}
		labels = append(labels, l)
	}
	// The same assignment twice: the check before writing passes both, the
	// second write fails.
	labels = append(labels, noCallLabel(ids[0], "alice"))
	tiny := bulkPace{Pace: bulk.Pace{ChunkTime: time.Nanosecond, Yield: time.Millisecond}}
	_, err := st.submitLabels(ctx, labels, tiny)
	var le *LabelError
	if !errors.As(err, &le) || le.Index != len(labels)-1 || !errors.Is(err, ErrConflict) {
		t.Fatalf("err = %v", err)
	}
	if after := tableCounts(t, st); after != before {
		t.Errorf("after the undo: labels, gold, disputes, submitted, settled = %v, before %v", after, before)
	}
	body, secs, err := st.Draft(ctx, ids[0], "alice")
	if err != nil || string(body) != `{"rationale":"half"}` || secs != 7 {
		t.Errorf("draft after the undo: %s %d %v", body, secs, err)
	}
	if a, _ := st.Assignment(ctx, ids[0], "alice"); a.Status != AssignDraft {
		t.Errorf("assignment after the undo: %+v", a)
	}
	// Without the duplicate, everything is written and settles.
	sets, err := st.submitLabels(ctx, labels[:len(labels)-1], tiny)
	if err != nil {
		t.Fatal(err)
	}
	settled := 0
	for _, s := range sets {
		if s.Settled {
			settled++
		}
	}
	if c := tableCounts(t, st); c[0] != 2*len(ids) || settled != len(ids) || c[1]+c[2] != len(ids) {
		t.Errorf("after the import: %v, %d settled", c, settled)
	}
}

// A labels import that fails after other connections wrote between its
// chunks takes back only its own labels: another reviewer's submits stay
// (an item they settled with an imported label goes back to labeling), and
// items a lead adjudicated or exported meanwhile keep the imported label.
func TestSubmitLabelsUndoKeepsWhatOthersWroteBetweenChunks(t *testing.T) {
	onEngines(t, testSubmitLabelsUndoKeepsWhatOthersWroteBetweenChunks)
}

func testSubmitLabelsUndoKeepsWhatOthersWroteBetweenChunks(t *testing.T, st *Store) {
	ctx := context.Background()
	fillTraces(t, st, 5)
	for _, u := range []struct{ name, role string }{{"alice", RoleReviewer}, {"bob", RoleReviewer}, {"carol", RoleLead}} {
		if err := st.AddUser(ctx, u.name, u.role); err != nil {
			t.Fatal(err)
		}
	}
	ids := allItems(t, st)
	a, b, c, d, e := ids[0], ids[1], ids[2], ids[3], ids[4]
	if err := st.CreateBatch(ctx, newBatchOf("b1", ids, "alice", "bob")); err != nil {
		t.Fatal(err)
	}
	callLabel := func(item, reviewer string) review.Label {
		l := noCallLabel(item, reviewer)
		l.Decision, l.Calls = review.DecisionCall, []review.LabelCall{{Tool: "get_order_status", Args: []byte(`{"order_id":"ORD-1"}`)}}
		return l
	}
	if err := st.SaveDraft(ctx, a, "alice", []byte(`{"rationale":"half"}`), 7); err != nil {
		t.Fatal(err)
	}
	for _, l := range []review.Label{callLabel(b, "bob"), noCallLabel(d, "bob")} {
		if _, err := st.SubmitLabel(ctx, l); err != nil {
			t.Fatal(err)
		}
	}

	// The others write through a connection of their own to the same file.
	other, err := Open(ctx, st.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	chunks := 0
	var otherErr error
	between := func() error {
		switch chunks {
		case 1: // alice's A is in: bob submits A (agreeing) and C
			for _, item := range []string{a, c} {
				if _, err := other.SubmitLabel(ctx, noCallLabel(item, "bob")); err != nil {
					return err
				}
			}
		case 2: // alice's B disputed it: the lead adjudicates
			_, err := other.Resolve(ctx, Resolution{Item: b, Lead: "carol", Reason: "bob is right", Pick: "bob"})
			return err
		case 3: // alice's D agreed: the lead exports it
			v1 := DatasetVersion{Name: "d", Version: 1, CreatedAt: "2026-05-01T12:00:00Z", SHA256: "aa", Count: 1}
			return other.writeDatasetVersion(ctx, "d", 1, map[string]string{d: "h"}, rowOf(v1, []byte(`{}`), compressed(t, []byte("{}\n"))), defaultBulkPace)
		}
		return nil
	}
	pace := bulkPace{Pace: bulk.Pace{ChunkTime: time.Nanosecond, Yield: time.Millisecond, Held: func(_, _ time.Duration) {
		chunks++
		if err := between(); err != nil && otherErr == nil {
			otherErr = err
		}
	}}}
	// The fourth chunk fails: alice's A a second time.
	labels := []review.Label{noCallLabel(a, "alice"), noCallLabel(b, "alice"), noCallLabel(d, "alice"), noCallLabel(a, "alice")}
	_, err = st.submitLabels(ctx, labels, pace)
	if otherErr != nil {
		t.Fatalf("the other connection's writes: %v", otherErr)
	}
	var le *LabelError
	var kept *KeptLabelsError
	if !errors.As(err, &le) || le.Index != 3 || !errors.Is(err, ErrConflict) || !errors.As(err, &kept) {
		t.Fatalf("err = %v", err)
	}
	if strings.Join(kept.Items, ",") != b+","+d {
		t.Errorf("kept %v, want %s and %s", kept.Items, b, d)
	}

	for _, tt := range []struct {
		item                   string
		status, labels, gold   string
		disputes               int
		aliceAssign, bobAssign string
	}{
		// alice's label taken back, bob's submit kept; no longer agreed.
		{a, "labeling", "bob", "", 0, AssignDraft, AssignSubmitted},
		// adjudicated meanwhile: left alone.
		{b, "adjudicated", "alice,bob", "adjudicated:carol", 1, AssignSubmitted, AssignSubmitted},
		// bob's unrelated submit.
		{c, "labeling", "bob", "", 0, AssignPending, AssignSubmitted},
		// exported meanwhile: left alone.
		{d, "agreed", "alice,bob", "agreed:", 0, AssignSubmitted, AssignSubmitted},
		{e, "sampled", "", "", 0, AssignPending, AssignPending},
	} {
		var status, labels, gold, aliceAssign, bobAssign string
		var disputes int
		err := st.r.QueryRowContext(ctx, `SELECT i.status,
			(SELECT coalesce(group_concat(reviewer, ',' ORDER BY reviewer), '') FROM labels WHERE item_id = i.id),
			coalesce((SELECT status || ':' || adjudicator FROM gold WHERE item_id = i.id), ''),
			(SELECT count(*) FROM disputes WHERE item_id = i.id),
			(SELECT status FROM assignments WHERE item_id = i.id AND reviewer = 'alice'),
			(SELECT status FROM assignments WHERE item_id = i.id AND reviewer = 'bob')
			FROM items i WHERE i.id = ?`, tt.item).Scan(&status, &labels, &gold, &disputes, &aliceAssign, &bobAssign)
		if err != nil {
			t.Fatal(err)
		}
		if status != tt.status || labels != tt.labels || gold != tt.gold || disputes != tt.disputes || aliceAssign != tt.aliceAssign || bobAssign != tt.bobAssign {
			t.Errorf("%s: status %s, labels by %q, gold %q, %d disputes, assignments alice %s bob %s; want %s, %q, %q, %d, %s, %s",
				tt.item, status, labels, gold, disputes, aliceAssign, bobAssign, tt.status, tt.labels, tt.gold, tt.disputes, tt.aliceAssign, tt.bobAssign)
		}
	}
	if body, secs, err := st.Draft(ctx, a, "alice"); err != nil || string(body) != `{"rationale":"half"}` || secs != 7 {
		t.Errorf("alice's draft of A after the undo: %s %d %v", body, secs, err)
	}
}

// SubmitLabels writes its labels in groups, settling each item once when
// its assignments are all closed: the outcome (labels, assignments, item
// states, gold, disputes and each label's Settlement) is the same as
// submitting the labels one by one, including a skipped assignment
// labeled later and a draft the label replaces.
func TestSubmitLabelsInGroupsSettlesAsOneByOne(t *testing.T) {
	forEngines(t, func(t *testing.T, engine string) {
		testSubmitLabelsInGroupsSettlesAsOneByOne(t, engine, false)
	})
}

// With review_agreed on, agreeing labels wait for a lead as a dispute of
// kind review in groups as one by one.
func TestSubmitLabelsInGroupsHoldsAgreedAsOneByOne(t *testing.T) {
	forEngines(t, func(t *testing.T, engine string) {
		testSubmitLabelsInGroupsSettlesAsOneByOne(t, engine, true)
	})
}

func testSubmitLabelsInGroupsSettlesAsOneByOne(t *testing.T, engine string, holdAgreed bool) {
	ctx := context.Background()
	var dumps [2]string
	var settlements [2][]Settlement
	for k := range 2 {
		st := openEngine(t, engine)
		fillTraces(t, st, 20)
		for _, r := range []string{"alice", "bob", "carol"} {
			if err := st.AddUser(ctx, r, RoleReviewer); err != nil {
				t.Fatal(err)
			}
		}
		if holdAgreed {
			if err := st.AddUser(ctx, "lead", RoleLead); err != nil {
				t.Fatal(err)
			}
			if err := st.SetSetting(ctx, "lead", SettingReviewAgreed, "true"); err != nil {
				t.Fatal(err)
			}
		}
		ids := allItems(t, st)
		if err := st.CreateBatch(ctx, newBatchOf("b1", ids, "alice", "bob", "carol")); err != nil {
			t.Fatal(err)
		}
		if err := st.SaveDraft(ctx, ids[3], "bob", []byte(`{"rationale":"half"}`), 7); err != nil {
			t.Fatal(err)
		}
		var labels, late []review.Label
		for i, id := range ids {
			if i%5 == 2 {
				// carol skips, then labels after the others.
				if err := st.SkipItem(ctx, id, "carol", "unsure"); err != nil {
					t.Fatal(err)
				}
			}
			for _, r := range []string{"alice", "bob", "carol"} {
				l := noCallLabel(id, r)
				if i%4 == 0 { // all three agree on a call
					l.Decision, l.Calls = review.DecisionCall, []review.LabelCall{{Tool: "get_order_status", Args: []byte(`{"order_id":"ORD-` + fmt.Sprint(i) + `"}`)}}
					l.Rationale, l.GuideVersion = "the order "+r, ""
				}
				if r == "bob" && i%3 == 1 {
					l.Decision, l.Calls = review.DecisionCall, []review.LabelCall{{Tool: "get_order_status", Args: []byte(`{"order_id":"ORD-1"}`)}}
				}
				if r == "carol" && i%5 == 2 {
					late = append(late, l)
					continue
				}
				labels = append(labels, l)
			}
		}
		labels = append(labels, late...)
		for j := range labels {
			labels[j].SubmittedAt = labels[j].SubmittedAt.Add(time.Duration(j) * time.Second)
		}
		if k == 0 {
			sets, err := st.SubmitLabels(ctx, labels)
			if err != nil {
				t.Fatal(err)
			}
			settlements[k] = sets
		} else {
			for _, l := range labels {
				s, err := st.SubmitLabel(ctx, l)
				if err != nil {
					t.Fatal(err)
				}
				settlements[k] = append(settlements[k], s)
			}
		}
		var dump strings.Builder
		for _, q := range []string{
			`SELECT item_id || reviewer || decision || calls || submitted_at FROM labels ORDER BY item_id, reviewer`,
			`SELECT item_id || reviewer || status || skip_reason FROM assignments ORDER BY item_id, reviewer`,
			`SELECT id || status FROM items ORDER BY id`,
			`SELECT item_id || status || decision || calls || acceptable || rationale || reviewers || adjudicator || guide_version || reason || updated_at
				FROM gold ORDER BY item_id`,
			`SELECT item_id || kinds || detail || created_at FROM disputes ORDER BY item_id`,
			`SELECT item_id || reviewer FROM drafts ORDER BY item_id, reviewer`,
		} {
			rows, err := queryStrings(ctx, st.r, q)
			if err != nil {
				t.Fatal(err)
			}
			dump.WriteString(strings.Join(rows, "\n") + "\n--\n")
		}
		// What an export of the gold writes, record by record.
		tgs, err := st.GoldTraces(ctx, GoldFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(tgs); holdAgreed && n != 0 || !holdAgreed && n == 0 {
			t.Fatalf("%d traces with gold (held: %v)", n, holdAgreed)
		}
		for _, tg := range tgs {
			lines, err := dataset.BuildLines(tg)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range lines {
				dump.Write(l.Bytes())
				dump.WriteString("\n")
			}
		}
		dumps[k] = dump.String()
	}
	if dumps[0] != dumps[1] {
		t.Errorf("in groups:\n%s\none by one:\n%s", dumps[0], dumps[1])
	}
	if len(settlements[0]) != len(settlements[1]) {
		t.Fatalf("%d settlements, one by one %d", len(settlements[0]), len(settlements[1]))
	}
	for j := range settlements[0] {
		a, b := settlements[0][j], settlements[1][j]
		if a.Settled != b.Settled || a.Comparison.Agreed != b.Comparison.Agreed {
			t.Errorf("label %d: settled %v agreed %v, one by one %v %v", j, a.Settled, a.Comparison.Agreed, b.Settled, b.Comparison.Agreed)
		}
	}
}
