package app

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// secondItem adds a second trace's item to the project, assigned to alice.
func secondItem(t *testing.T, st *store.Store) string {
	t.Helper()
	ctx := context.Background()
	tr := trace.Trace{ID: "tr_2", Timestamp: time.Date(2026, 5, 1, 13, 0, 0, 0, time.UTC),
		Messages: []trace.Message{{Role: "user", Content: "cancel ORD-2"}, {Role: "assistant", Content: "Done."}}}
	item := trace.Items(tr)[0].ID
	if err := st.WithTx(ctx, func(tx *store.Tx) error {
		if _, err := st.InsertTrace(ctx, tx, tr, "test"); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO assignments(item_id, reviewer, batch, position, updated_at) VALUES (?, 'alice', 'b1', 1, 'now')`, item)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return item
}

// refuseDrafts makes the database refuse every draft of item (a trigger
// named name), on engine's terms; the function it returns drops it.
func refuseDrafts(t *testing.T, st *store.Store, engine, name, item string) (allow func()) {
	t.Helper()
	stmts := []string{`CREATE TRIGGER ` + name + ` BEFORE INSERT ON drafts WHEN NEW.item_id = '` + item + `' BEGIN SELECT RAISE(ABORT, 'drafts refused'); END`}
	drop := `DROP TRIGGER ` + name
	if engine == "postgres" {
		stmts = []string{
			`CREATE FUNCTION ` + name + `() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'drafts refused'; END $$`,
			`CREATE TRIGGER ` + name + ` BEFORE INSERT ON drafts FOR EACH ROW WHEN (NEW.item_id = '` + item + `') EXECUTE FUNCTION ` + name + `()`,
		}
		drop += ` ON drafts`
	}
	execAll(t, st, stmts)
	return func() { execAll(t, st, []string{drop}) }
}

func keepDraft(t *testing.T, base, reviewer, item, rationale string, at time.Time) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"rationale": rationale})
	if err := KeepRecoveryDraft(RecoveryPath(base, reviewer), reviewer, RecoveryDraft{Item: item, Body: body, Seconds: 7, SavedAt: at}); err != nil {
		t.Fatal(err)
	}
}

// draftSays reads reviewer's draft of item through st ("" when none).
func draftSays(t *testing.T, st *store.Store, item, reviewer string) string {
	t.Helper()
	body, _, err := st.Draft(context.Background(), item, reviewer)
	if errors.Is(err, store.ErrNotFound) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	var d struct{ Rationale string }
	if err := json.Unmarshal(body, &d); err != nil {
		t.Fatalf("draft %s: %v", body, err)
	}
	return d.Rationale
}

// TestRecoveryDraftsReachEveryReplica: the recovery files one replica
// (store handle A) holds reach the database, and so a reviewer on another
// replica (handle B), once it takes writes again: each file all or nothing
// (a refused draft keeps its file's other draft out too), never over a
// newer draft or a submitted label, never under another reviewer's name.
func TestRecoveryDraftsReachEveryReplica(t *testing.T) {
	onEngines(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		stA, item1 := oneItemOn(t, engine)
		item2 := secondItem(t, stA)
		stB, err := store.Open(ctx, stA.Path())
		if err != nil {
			t.Fatal(err)
		}
		defer stB.Close()
		a := New(stA)
		base := filepath.Join(t.TempDir(), "gt.db")
		typed := time.Now().Add(-time.Minute).UTC()

		keepDraft(t, base, "alice", item1, "alice one", typed)
		keepDraft(t, base, "alice", item2, "alice two", typed)
		// bob typed on in another session since: his file's draft is older.
		keepDraft(t, base, "bob", item1, "bob old", typed)
		if err := stB.SaveDraft(ctx, item1, "bob", []byte(`{"rationale":"bob newer"}`), 3); err != nil {
			t.Fatal(err)
		}
		// A file named after dave holding alice's drafts: nobody's to restore.
		body, _ := json.Marshal(RecoveryFile{Reviewer: "alice", Drafts: []RecoveryDraft{{Item: item1, Body: json.RawMessage(`{"rationale":"stray"}`), SavedAt: time.Now()}}})
		if err := os.WriteFile(RecoveryPath(base, "dave"), body, 0o600); err != nil {
			t.Fatal(err)
		}

		allow := refuseDrafts(t, stA, engine, "refuse_item2", item2)
		done, failed := a.RestoreRecoveries(ctx, base)
		if len(failed) != 2 || failed[RecoveryPath(base, "alice")] == nil || failed[RecoveryPath(base, "dave")] == nil {
			t.Fatalf("restore while item2's drafts are refused: done %+v failed %v", done, failed)
		}
		if len(done) != 1 || done[0].Reviewer != "bob" || done[0].Dropped != 1 || done[0].Restored != 0 {
			t.Fatalf("bob's older draft: %+v", done)
		}
		if got := draftSays(t, stB, item1, "bob"); got != "bob newer" {
			t.Fatalf("bob's newer draft became %q", got)
		}
		if got := draftSays(t, stB, item1, "alice"); got != "" {
			t.Fatalf("half of alice's file restored: %q", got)
		}
		if f, err := ReadRecovery(RecoveryPath(base, "alice")); err != nil || len(f.Drafts) != 2 {
			t.Fatalf("alice's file after the refusal: %+v %v", f, err)
		}
		allow()

		// alice reconnected to replica B and submitted item2 meanwhile.
		if _, err := stB.SubmitLabel(ctx, label(item2, "alice", "ORD-2")); err != nil {
			t.Fatal(err)
		}
		// Replica A's restorer, as serve runs it.
		rctx, stop := context.WithCancel(ctx)
		var mu sync.Mutex
		var said []string
		finished := make(chan struct{})
		go func() {
			defer close(finished)
			a.KeepRestoringRecoveries(rctx, base, 20*time.Millisecond, func(s string) { mu.Lock(); said = append(said, s); mu.Unlock() })
		}()
		// Until it removed alice's file and said why it leaves dave's.
		for deadline := time.Now().Add(10 * time.Second); ; {
			_, err := os.Stat(RecoveryPath(base, "alice"))
			mu.Lock()
			toldOfDave := strings.Contains(strings.Join(said, "\n"), "recovery-dave.json")
			mu.Unlock()
			if errors.Is(err, os.ErrNotExist) && toldOfDave {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("alice's recovery file is still there 10 s after the database took writes again, or the stray file was not reported")
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond) // a few more rounds: nothing said twice
		stop()
		<-finished
		if got := draftSays(t, stB, item1, "alice"); got != "alice one" {
			t.Fatalf("alice's draft read on replica B: %q", got)
		}
		if got := draftSays(t, stB, item2, "alice"); got != "" {
			t.Fatalf("a draft restored over alice's submitted label: %q", got)
		}
		if l, err := stB.Label(ctx, item2, "alice"); err != nil || !strings.Contains(string(l.Calls[0].Args), "ORD-2") {
			t.Fatalf("alice's submitted label: %+v %v", l, err)
		}
		if _, err := os.Stat(RecoveryPath(base, "dave")); err != nil {
			t.Fatalf("the stray file was removed: %v", err)
		}
		mu.Lock()
		log := strings.Join(said, "\n")
		mu.Unlock()
		if !strings.Contains(log, "restored 1 unsaved draft(s) of alice") || strings.Count(log, "recovery-dave.json") != 1 {
			t.Errorf("what the restorer said:\n%s", log)
		}
		// Again: nothing left to do, and nothing restored twice.
		if done, failed := a.RestoreRecoveries(ctx, base); len(done) != 0 || len(failed) != 1 {
			t.Errorf("a second pass: %+v %v", done, failed)
		}
	})
}
