package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// smpRun runs goldtrace with args against db and returns stdout and the error.
func smpRun(t *testing.T, db string, args ...string) (string, error) {
	t.Helper()
	out, _, _, err := runCLI(db, "", args...)
	return out, err
}

func smpMust(t *testing.T, db string, args ...string) string {
	t.Helper()
	out, err := smpRun(t, db, args...)
	if err != nil {
		t.Fatalf("goldtrace %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// smpTrace is a trace with one decision point per tool in calls ("" = the
// assistant answered without a tool), cohort metadata and a timestamp.
func smpTrace(id string, ts time.Time, cohort string, question string, calls ...string) trace.Trace {
	t := trace.Trace{ID: id, Timestamp: ts, Metadata: map[string]string{"cohort": cohort},
		Tools:    []trace.Tool{{Name: "get_order"}, {Name: "refund"}, {Name: "escalate"}},
		Messages: []trace.Message{{Role: "user", Content: question}}}
	for i, tool := range calls {
		if tool == "" {
			t.Messages = append(t.Messages, trace.Message{Role: "assistant", Content: fmt.Sprint("answer ", i)})
			t.Messages = append(t.Messages, trace.Message{Role: "user", Content: fmt.Sprint("and then ", i)})
			continue
		}
		cid := fmt.Sprint("c", i)
		t.Messages = append(t.Messages,
			trace.Message{Role: "assistant", ToolCalls: []trace.Call{trace.NewCall(cid, tool, `{"n":1}`)}},
			trace.Message{Role: "tool", ToolCallID: cid, Name: tool, Content: "ok"})
	}
	return t
}

// smpCorpus is 120 traces (300 items): get_order common, refund less so,
// escalate rare (2 items), a third of the turns without a call, two cohorts.
func smpCorpus() []trace.Trace {
	base := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	var out []trace.Trace
	for i := 0; i < 120; i++ {
		cohort := "billing"
		if i%3 == 0 {
			cohort = "shipping"
		}
		calls := []string{"get_order", "", "refund"}
		if i%4 != 0 {
			calls[2] = "get_order"
		}
		if i == 7 || i == 91 {
			calls[0] = "escalate"
		}
		out = append(out, smpTrace(fmt.Sprintf("tr_%03d", i), base.Add(time.Duration(i)*time.Hour), cohort,
			fmt.Sprint("question ", i), calls...))
	}
	return out
}

// smpDB creates a database holding traces (inserted in the given order) and
// the users alice, bob, carol, dave.
func smpDB(t *testing.T, traces []trace.Trace) string {
	t.Helper()
	return smpDBAt(t, filepath.Join(t.TempDir(), "gt.db"), traces)
}

// smpDBAt is smpDB on the database db names (a SQLite path or a
// PostgreSQL DSN).
func smpDBAt(t *testing.T, db string, traces []trace.Trace) string {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	err = st.WithTx(ctx, func(tx *store.Tx) error {
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
	for _, u := range []string{"alice", "bob", "carol", "dave"} {
		if err := st.AddUser(ctx, u, store.RoleReviewer); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func smpPlan(t *testing.T, out string) app.SamplePlan {
	t.Helper()
	var p app.SamplePlan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("sample --json: %v\n%s", err, out)
	}
	return p
}

func TestSampleReproducibleAcrossFreshDatabases(t *testing.T) {
	corpus := smpCorpus()
	reversed := slices.Clone(corpus)
	slices.Reverse(reversed)
	args := []string{"sample", "--n", "40", "--seed", "42", "--by", "tool", "--reviewers", "alice,bob,carol", "--json"}
	a := smpPlan(t, smpMust(t, smpDB(t, corpus), args...))
	b := smpPlan(t, smpMust(t, smpDB(t, reversed), args...))
	if a.Sampled != 40 || len(a.Items) != 40 {
		t.Fatalf("sampled %d", a.Sampled)
	}
	ja, _ := json.Marshal(a.Items)
	jb, _ := json.Marshal(b.Items)
	if !bytes.Equal(ja, jb) {
		t.Errorf("same data, seed and flags gave different samples:\n%s\n%s", ja, jb)
	}
	c := smpPlan(t, smpMust(t, smpDB(t, corpus), "sample", "--n", "40", "--seed", "43", "--by", "tool", "--reviewers", "alice,bob,carol", "--json"))
	jc, _ := json.Marshal(c.Items)
	if bytes.Equal(ja, jc) {
		t.Errorf("seeds 42 and 43 gave the same sample")
	}
}

func TestSampleStratifiesAndCoversRareTools(t *testing.T) {
	db := smpDB(t, smpCorpus())
	p := smpPlan(t, smpMust(t, db, "sample", "--n", "30", "--seed", "1", "--by", "tool", "--reviewers", "alice,bob", "--json"))
	// Distinct inputs per first tool: 120 no-call turns, 2 escalate,
	// 30 refund, 208 get_order minus... counted from the corpus below.
	got := map[string]int{}
	avail := map[string]int{}
	for _, s := range p.Strata {
		got[s.Name], avail[s.Name] = s.Sampled, s.Available
	}
	if avail["escalate"] != 2 || avail["(none)"] != 120 || avail["refund"] != 30 || avail["get_order"] != 208 {
		t.Fatalf("available per stratum: %v", avail)
	}
	// 30 of 360: proportional shares 17.33, 10, 2.5, 0.17 -> escalate is
	// lifted to its minimum of 1 and the other 29 split 208:120:30.
	want := map[string]int{"get_order": 17, "(none)": 10, "refund": 2, "escalate": 1}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("stratum %s: sampled %d, want %d (all: %v)", k, got[k], v, got)
		}
	}
	per := map[string]int{}
	for _, it := range p.Items {
		per[it.Stratum]++
	}
	if !maps2Equal(per, want) {
		t.Errorf("items per stratum %v, want %v", per, want)
	}
	eq := smpPlan(t, smpMust(t, db, "sample", "--n", "20", "--seed", "1", "--by", "meta.cohort", "--alloc", "equal", "--dry-run", "--json"))
	for _, s := range eq.Strata {
		if s.Sampled != 10 {
			t.Errorf("equal by cohort: %s got %d, want 10", s.Name, s.Sampled)
		}
	}
}

func maps2Equal(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestSampleWritesBatchAndNeverResamples(t *testing.T) {
	db := smpDB(t, smpCorpus())
	first := smpPlan(t, smpMust(t, db, "sample", "--n", "100", "--seed", "5", "--reviewers", "alice,bob,carol", "--json"))
	second := smpPlan(t, smpMust(t, db, "sample", "--n", "500", "--seed", "5", "--reviewers", "alice,bob,carol", "--json"))
	if first.Batch != "b1" || second.Batch != "b2" {
		t.Errorf("batch names %s, %s; want b1, b2", first.Batch, second.Batch)
	}
	if first.Sampled != 100 || second.Sampled != 260 || second.Excluded != 0 {
		t.Errorf("sampled %d then %d (excluded %d); want 100 then the other 260", first.Sampled, second.Sampled, second.Excluded)
	}
	seen := map[string]bool{}
	for _, it := range append(first.Items, second.Items...) {
		if seen[it.ID] {
			t.Fatalf("item %s sampled twice", it.ID)
		}
		seen[it.ID] = true
	}
	if _, err := smpRun(t, db, "sample", "--n", "5", "--seed", "5", "--reviewers", "alice,bob"); err == nil ||
		!strings.Contains(err.Error(), "not already in a batch") {
		t.Errorf("third sample of an exhausted store: %v", err)
	}

	var batches []store.BatchSummary
	if err := json.Unmarshal([]byte(smpMust(t, db, "batches", "--json")), &batches); err != nil {
		t.Fatal(err)
	}
	if len(batches) != 2 || batches[0].Name != "b1" || batches[0].Items != 100 || batches[0].Seed != 5 ||
		batches[0].PerItem != 2 || batches[0].Assignments["pending"] != 200 ||
		strings.Join(batches[0].Reviewers, ",") != "alice,bob,carol" {
		t.Errorf("batches: %+v", batches)
	}
	text := smpMust(t, db, "batches")
	if !strings.Contains(text, "b2") || !strings.Contains(text, "alice,bob,carol") {
		t.Errorf("batches text:\n%s", text)
	}

	// What the store holds matches the plan: positions, statuses, loads.
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := st.Reader().QueryContext(ctx, `SELECT b.item_id, b.position, i.status FROM batch_items b JOIN items i ON i.id = b.item_id WHERE b.batch = 'b1' ORDER BY b.position`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	pos := 0
	for rows.Next() {
		var id, status string
		var p int
		if err := rows.Scan(&id, &p, &status); err != nil {
			t.Fatal(err)
		}
		if id != first.Items[pos].ID || p != pos || status != "sampled" {
			t.Errorf("batch item %d: %s at %d (%s), want %s", pos, id, p, status, first.Items[pos].ID)
		}
		pos++
	}
	var minLoad, maxLoad, minPos, maxPos int
	if err := st.Reader().QueryRowContext(ctx, `SELECT min(n), max(n), min(mx), max(mx) FROM
		(SELECT count(*) AS n, max(position) AS mx FROM assignments WHERE batch = 'b1' GROUP BY reviewer)`).Scan(&minLoad, &maxLoad, &minPos, &maxPos); err != nil {
		t.Fatal(err)
	}
	if maxLoad-minLoad > 1 || maxPos != maxLoad-1 {
		t.Errorf("loads %d..%d, last positions %d..%d", minLoad, maxLoad, minPos, maxPos)
	}
}

func TestSampleDeduplicatesInputsEarliestWins(t *testing.T) {
	base := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	// Same question and tools, different answers: one input three times.
	late := smpTrace("tr_a", base.Add(2*time.Hour), "billing", "same question", "refund")
	early := smpTrace("tr_z", base.Add(time.Hour), "shipping", "same question", "get_order")
	tie := smpTrace("tr_y", base.Add(time.Hour), "billing", "same question", "escalate")
	other := smpTrace("tr_b", base, "billing", "another question", "refund")
	db := smpDB(t, []trace.Trace{late, early, tie, other})
	p := smpPlan(t, smpMust(t, db, "sample", "--n", "10", "--seed", "3", "--by", "tool", "--dry-run", "--json"))
	var got []string
	for _, it := range p.Items {
		got = append(got, it.TraceID)
	}
	slices.Sort(got)
	if strings.Join(got, ",") != "tr_b,tr_y" || p.Duplicates != 2 || p.Matching != 2 {
		t.Errorf("sampled traces %v, %d duplicates, %d matching; want tr_b and tr_y (earliest, then lowest id), 2, 2", got, p.Duplicates, p.Matching)
	}
}

func TestSampleFilters(t *testing.T) {
	db := smpDB(t, smpCorpus())
	tests := []struct {
		args  []string
		check func(app.SamplePlan) string
	}{
		{[]string{"--where", "meta.cohort=shipping", "--turns", "calls"}, func(p app.SamplePlan) string {
			if p.Matching != 80 { // 40 shipping traces x 2 call turns
				return fmt.Sprintf("matching %d, want 80", p.Matching)
			}
			return ""
		}},
		{[]string{"--where", "tool=refund"}, func(p app.SamplePlan) string {
			for _, it := range p.Items {
				if it.Stratum != "" {
					return "unstratified sample has a stratum"
				}
			}
			if p.Matching != 30 {
				return fmt.Sprintf("matching %d, want 30", p.Matching)
			}
			return ""
		}},
		{[]string{"--turns", "no-calls", "--where", "meta.cohort=billing"}, func(p app.SamplePlan) string {
			if p.Matching != 80 {
				return fmt.Sprintf("matching %d, want 80", p.Matching)
			}
			return ""
		}},
		// Traces are hourly from 2026-05-01T00:00; the first day holds 24.
		{[]string{"--since", "2026-05-01", "--until", "2026-05-01"}, func(p app.SamplePlan) string {
			if p.Matching != 72 {
				return fmt.Sprintf("matching %d, want 72", p.Matching)
			}
			return ""
		}},
		{[]string{"--since", "2026-05-02T00:00:00Z", "--until", "2026-05-02T10:00:00Z"}, func(p app.SamplePlan) string {
			if p.Matching != 30 {
				return fmt.Sprintf("matching %d, want 30", p.Matching)
			}
			return ""
		}},
	}
	for _, tc := range tests {
		args := append([]string{"sample", "--n", "500", "--seed", "1", "--dry-run", "--json"}, tc.args...)
		p := smpPlan(t, smpMust(t, db, args...))
		if msg := tc.check(p); msg != "" {
			t.Errorf("%v: %s", tc.args, msg)
		}
	}
}

func TestSampleTextOutputAndClockSeed(t *testing.T) {
	db := smpDB(t, smpCorpus())
	out := smpMust(t, db, "sample", "--n", "500", "--by", "tool", "--reviewers", "alice,bob,carol,dave", "--dry-run")
	for _, want := range []string{
		"only 360 items match (asked for 500): sampling all of them",
		"taken from the clock: repeat with --seed",
		"STRATUM", "escalate", "batch b1 would be created with 360 items, 2 reviewers per item",
		"alice     180", "dry run: nothing written",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if got := smpMust(t, db, "batches"); !strings.Contains(got, "no batches yet") {
		t.Errorf("dry run wrote a batch:\n%s", got)
	}
}

func TestSampleBadInput(t *testing.T) {
	full := smpDB(t, smpCorpus())
	empty := smpDB(t, nil)
	tests := []struct {
		db   string
		args []string
		want string
	}{
		{full, []string{"--n", "0"}, "--n must be a positive"},
		{full, []string{"--n", "-3"}, "--n must be a positive"},
		{full, []string{"--seed", "abc"}, `--seed "abc": must be an integer`},
		{full, []string{"--by", "color"}, `--by: unknown key "color"`},
		{full, []string{"--by", "meta.color"}, `no stored trace has metadata "color" (keys: cohort)`},
		{full, []string{"--where", "meta.cohort=nope"}, "no items match --where meta.cohort=nope"},
		{full, []string{"--where", "cohort"}, "want KEY=VALUE"},
		{full, []string{"--alloc", "random"}, "--alloc"},
		{full, []string{"--turns", "some"}, "--turns"},
		{full, []string{"--since", "yesterday"}, "--since"},
		{full, []string{"--since", "2026-06-01", "--until", "2026-05-01"}, "is not before"},
		{full, []string{"--reviewers", "alice,zed,yan"}, "unknown users zed, yan"},
		{full, []string{"--reviewers", "alice,bob", "--per-item", "3"}, "--per-item 3 is more than the 2 reviewers given (--reviewers alice,bob): name more reviewers, or add --per-item 2"},
		{full, []string{"--reviewers", "alice,alice"}, "listed twice"},
		{full, []string{"--reviewers", ""}, "--reviewers is required"},
		{empty, []string{}, "the store has no items"},
	}
	for _, tc := range tests {
		args := append([]string{"sample", "--seed", "1"}, tc.args...)
		if !slices.Contains(tc.args, "--reviewers") {
			args = append(args, "--reviewers", "alice,bob")
		}
		out, err := smpRun(t, tc.db, args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
			continue
		}
		if exitCode(err) != 2 || strings.Contains(err.Error(), "\n") || out != "" {
			t.Errorf("%v: exit %d, output %q, error %q", tc.args, exitCode(err), out, err)
		}
	}
	if got := smpMust(t, full, "batches", "--json"); strings.TrimSpace(got) != "[]" {
		t.Errorf("bad input wrote batches: %s", got)
	}
	smpMust(t, full, "sample", "--n", "3", "--seed", "1", "--batch", "pilot", "--reviewers", "alice,bob")
	if _, err := smpRun(t, full, "sample", "--n", "3", "--seed", "1", "--batch", "pilot", "--reviewers", "alice,bob"); err == nil ||
		!strings.Contains(err.Error(), "a batch with that name exists") {
		t.Errorf("duplicate batch name: %v", err)
	}
}
