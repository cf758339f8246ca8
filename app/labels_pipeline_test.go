package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// itemsOn is oneItemOn with n more items (traces tr_2…), every item
// assigned to alice and bob in batch b1 and sampled, as a batch leaves
// them; it returns the app, the store and the items' ids.
func itemsOn(t *testing.T, engine string, n int) (*App, *store.Store, []string) {
	t.Helper()
	ctx := context.Background()
	st, first := oneItemOn(t, engine)
	ids := []string{first}
	err := st.WithTx(ctx, func(tx *store.Tx) error {
		for i := range n {
			tr := trace.Trace{ID: fmt.Sprintf("tr_%06d", i+2), Timestamp: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC),
				Tools: []trace.Tool{{Name: "get_order_status", Description: "Status of one order.",
					Parameters: []byte(`{"type":"object","properties":{"order_id":{"type":"string"}},"required":["order_id"]}`)}},
				Messages: []trace.Message{
					{Role: "user", Content: fmt.Sprintf("where is ORD-%d?", i)},
					{Role: "assistant", ToolCalls: []trace.Call{trace.NewCall("c1", "get_order_status", fmt.Sprintf(`{"order_id":"ORD-%d"}`, i))}},
				}}
			if _, err := st.InsertTrace(ctx, tx, tr, "test"); err != nil {
				return err
			}
			item := trace.Items(tr)[0].ID
			for _, u := range []string{"alice", "bob"} {
				if _, err := tx.ExecContext(ctx, `INSERT INTO assignments(item_id, reviewer, batch, position, updated_at) VALUES (?, ?, 'b1', ?, 'now')`, item, u, i+1); err != nil {
					return err
				}
			}
			ids = append(ids, item)
		}
		_, err := tx.ExecContext(ctx, `UPDATE items SET status = 'sampled'`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return New(st), st, ids
}

// labelLines are one label line per item and reviewer, alice's and bob's
// of an item next to each other (as an export writes them); every fifth
// item is disputed.
func labelLines(ids []string) []string {
	var lines []string
	for i, id := range ids {
		for _, who := range []string{"alice", "bob"} {
			order := "ORD-" + strconv.Itoa(i)
			if who == "bob" && i%5 == 0 {
				order = "ORD-x"
			}
			lines = append(lines, `{"item":"`+id+`","reviewer":"`+who+`","decision":"call","calls":[{"tool":"get_order_status","args":{"order_id":"`+order+`"}}],"rationale":"the order asked about"}`)
		}
	}
	return lines
}

// heldBack reads lines, but before giving the last one waits until
// written says the import has written some of the others (it fails the
// test after a while): an import that fails on its last line has then
// surely begun writing.
type heldBack struct {
	t       *testing.T
	r       io.Reader
	last    string
	written func() bool
	waited  bool
}

func (h *heldBack) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	if err != io.EOF || h.waited {
		return n, err
	}
	if n > 0 {
		return n, nil
	}
	h.waited = true
	for deadline := time.Now().Add(30 * time.Second); !h.written(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			h.t.Error("no label was written while the file was read")
			break
		}
	}
	h.r = strings.NewReader(h.last)
	return h.r.Read(p)
}

// writtenWhileRead is written on SQLite, where labels are written while
// the file is still read; on PostgreSQL an import's two writers start once
// every label is checked, so the last line is given at once there.
func writtenWhileRead(engine string, written func() bool) func() bool {
	if engine == "postgres" {
		return func() bool { return true }
	}
	return written
}

// labelsTaken are the labels, submitted assignments and settled items
// stored.
func labelsTaken(t *testing.T, st *store.Store) string {
	t.Helper()
	var labels, submitted, settled, gold int
	err := st.WithTx(context.Background(), func(tx *store.Tx) error {
		return tx.QueryRowContext(context.Background(), `SELECT (SELECT count(*) FROM labels), (SELECT count(*) FROM assignments WHERE status = 'submitted'),
			(SELECT count(*) FROM items WHERE status <> 'sampled'), (SELECT count(*) FROM gold)`).Scan(&labels, &submitted, &settled, &gold)
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d labels, %d submitted, %d items not sampled, %d gold", labels, submitted, settled, gold)
}

// importAudits are the labels import entries in the audit log.
func importAudits(t *testing.T, st *store.Store) []string {
	t.Helper()
	var out []string
	es, err := st.AuditLog(context.Background(), store.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if strings.HasPrefix(e.Action, "labels.import") {
			out = append(out, e.Action+" "+e.Object+" "+e.Outcome)
		}
	}
	return out
}

// pipelineItems is how many items the labels import tests label (two
// labels each): more than one round of checks (labelsCheckedAtOnce), so
// that the first labels are written while the rest of the file is read. GOLDTRACE_LABELS_ITEMS
// sets it (25000: a 50k-label file).
func pipelineItems(t *testing.T) int {
	if s := os.Getenv("GOLDTRACE_LABELS_ITEMS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	return labelsCheckedAtOnce/2 + 1
}

// TestLabelsImportFailingOnItsLastLineTakesBackWhatItWrote: the labels of
// a file are written while the rest is checked; a bad label on the last
// line, found after labels were written, has them all taken back (nothing
// stays, no audit entry), and the error names that line. With
// --skip-invalid the others are imported and the entry counts them.
func TestLabelsImportFailingOnItsLastLineTakesBackWhatItWrote(t *testing.T) {
	type badLine struct {
		name string
		line func(ids []string) (line, problem string)
		skip bool // import with --skip-invalid (the labels stay: last)
		pg   bool // run on PostgreSQL too
	}
	unknown := func([]string) (string, string) {
		return `{"item":"it_nope","reviewer":"alice","decision":"no_call","rationale":"r"}`, "unknown item it_nope"
	}
	bad := []badLine{
		{"unknown item", unknown, false, true},
		{"not assigned", func(ids []string) (string, string) {
			return `{"item":"` + ids[0] + `","reviewer":"dave","decision":"no_call","rationale":"r"}`, "dave is not assigned item " + ids[0]
		}, false, false},
		{"not json", func([]string) (string, string) { return `{"item":`, "not a label" }, false, false},
		{"unknown item, skipped", unknown, true, true},
	}
	onEngines(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		a, st, ids := itemsOn(t, engine, pipelineItems(t))
		before := labelsTaken(t, st)
		lines := labelLines(ids)
		written := writtenWhileRead(engine, func() bool {
			_, err := st.Label(ctx, ids[0], "alice")
			return err == nil
		})
		for _, b := range bad {
			name, skip := b.name, b.skip
			if engine == "postgres" && !b.pg {
				continue // slow there; the kind of problem is the app's
			}
			{
				last, problem := b.line(ids)
				in := &heldBack{t: t, r: strings.NewReader(strings.Join(lines, "\n") + "\n"), last: last + "\n", written: written}
				open := func() (io.ReadCloser, error) { return io.NopCloser(in), nil }
				rep, err := a.ImportLabels(ctx, actor(t, a, "carol"), open, LabelsImportOptions{File: "all.jsonl", ForOthers: true, SkipInvalid: skip})
				where := fmt.Sprintf("all.jsonl:%d: %s", len(lines)+1, problem)
				if len(rep.Invalid) != 1 || !strings.HasPrefix(rep.Invalid[0], where) {
					t.Errorf("%s: problems %q, want one for %q", name, rep.Invalid, where)
				}
				if skip {
					if err != nil || rep.Imported != len(lines) || rep.Skipped != 1 {
						t.Fatalf("%s, skipping it: %v %+v", name, err, rep)
					}
					want := fmt.Sprintf("labels.import-others %d labels from all.jsonl (%d in other reviewers' names) ok", len(lines), len(lines))
					if got := importAudits(t, st); len(got) != 1 || got[0] != want {
						t.Errorf("%s: audit %q, want %q", name, got, want)
					}
					if *rep.Agreed != len(ids)-(len(ids)+4)/5 || *rep.Disputed != (len(ids)+4)/5 {
						t.Errorf("%s: %d agreed, %d disputed of %d items", name, *rep.Agreed, *rep.Disputed, len(ids))
					}
					continue
				}
				want := "1 invalid label in all.jsonl; nothing imported"
				if err == nil || !strings.HasPrefix(err.Error(), want) || rep.Imported != 0 {
					t.Fatalf("%s: %v %+v, want %q…", name, err, rep, want)
				}
				if got := labelsTaken(t, st); got != before {
					t.Errorf("%s: after the failed import %s, before it %s", name, got, before)
				}
				if got := importAudits(t, st); len(got) != 0 {
					t.Errorf("%s: audit entries of a failed import: %q", name, got)
				}
			}
		}
	})
}

// TestLabelsImportOfAnItemAdjudicatedAtTheEndTakesBackWhatItWrote: a
// label whose item a lead has adjudicated is refused even with
// --skip-invalid; found on the last line, after the first labels were
// written, it has them taken back.
func TestLabelsImportOfAnItemAdjudicatedAtTheEndTakesBackWhatItWrote(t *testing.T) {
	onEngines(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		a, st, ids := itemsOn(t, engine, pipelineItems(t))
		last := ids[len(ids)-1]
		for _, who := range []string{"alice", "bob"} {
			if _, err := st.SubmitLabel(ctx, label(last, who, "ORD-"+who)); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := st.Resolve(ctx, store.Resolution{Item: last, Lead: "carol", Reason: "alice is right", Pick: "alice"}); err != nil {
			t.Fatal(err)
		}
		execAll(t, st, []string{`INSERT INTO assignments(item_id, reviewer, batch, position, updated_at) VALUES ('` + last + `', 'dave', 'b1', 0, 'now')`})
		before := labelsTaken(t, st)
		lines := labelLines(ids[:len(ids)-1])
		in := &heldBack{t: t, r: strings.NewReader(strings.Join(lines, "\n") + "\n"),
			last: `{"item":"` + last + `","reviewer":"dave","decision":"no_call","rationale":"nothing to look up"}` + "\n",
			written: writtenWhileRead(engine, func() bool {
				_, err := st.Label(ctx, ids[0], "alice")
				return err == nil
			})}
		open := func() (io.ReadCloser, error) { return io.NopCloser(in), nil }
		rep, err := a.ImportLabels(ctx, actor(t, a, "carol"), open, LabelsImportOptions{File: "late.jsonl", ForOthers: true, SkipInvalid: true})
		want := fmt.Sprintf("late.jsonl:%d: item %s is already settled", len(lines)+1, last)
		if !errors.Is(err, store.ErrConflict) || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "; nothing imported") || rep.Imported != 0 {
			t.Fatalf("import ending with an adjudicated item: %v %+v, want %q…", err, rep, want)
		}
		if got := labelsTaken(t, st); got != before {
			t.Errorf("after the failed import %s, before it %s", got, before)
		}
	})
}
