package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/internal/sqlitetest"
	"github.com/goldtrace/goldtrace/store/sqlite"
	"github.com/klauspost/compress/zstd"
)

// fillTraces stores n traces so the file has pages well past its schema.
func fillTraces(t testing.TB, st *Store, n int) {
	t.Helper()
	ctx := context.Background()
	err := st.WithTx(ctx, func(tx *Tx) error {
		for i := 0; i < n; i++ {
			tr := sampleTrace(fmt.Sprintf("tr_%05d", i))
			tr.Messages[0].Content = strings.Repeat("where is my package? ", 20) + tr.ID
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

func TestOpenAndReadWhileAnotherProcessHoldsTheWriteLock(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gt.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddUser(ctx, "alice", RoleReviewer); err != nil {
		t.Fatal(err)
	}
	st.Close()
	release := sqlitetest.HoldWriteLock(t, path, time.Second)
	defer release()
	start := time.Now()
	st, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("open with the write lock held elsewhere: %v", err)
	}
	defer st.Close()
	users, err := st.Users(ctx)
	if err != nil || len(users) != 1 {
		t.Fatalf("users = %v, %v", users, err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("open and read took %s: it waited for the write lock", d)
	}
}

func TestReadOnlyOpenReadsAndRefusesWrites(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gt.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddUser(ctx, "alice", RoleReviewer); err != nil {
		t.Fatal(err)
	}
	st.Close()
	ro, err := OpenWith(ctx, path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if u, err := ro.User(ctx, "alice"); err != nil || u.Role != RoleReviewer {
		t.Fatalf("read: %v %v", u, err)
	}
	err = ro.AddUser(ctx, "bob", RoleReviewer)
	if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), path) {
		t.Fatalf("write on a read-only store: %v", err)
	}
	if _, err := OpenWith(ctx, filepath.Join(t.TempDir(), "none.db"), Options{ReadOnly: true}); err == nil {
		t.Error("read-only open of a missing file succeeded")
	}
}

func TestCheckHealthyAndBackup(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	fillTraces(t, st, 50)
	problems, err := st.Check(ctx)
	if err != nil || len(problems) != 0 {
		t.Fatalf("check of a healthy store: %v %v", problems, err)
	}
	dest := filepath.Join(t.TempDir(), "copy.db")
	if err := st.Backup(ctx, dest); err != nil {
		t.Fatal(err)
	}
	cp, err := OpenWith(ctx, dest, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	sum, err := cp.TraceSummary(ctx, 5)
	if err != nil || sum.Traces != 50 {
		t.Fatalf("backup holds %d traces (%v), want 50", sum.Traces, err)
	}
	if err := st.Backup(ctx, dest); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("backup over an existing file: %v", err)
	}
}

func TestCheckFindsBrokenInvariants(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	// A submitted assignment without its label and a half-written batch,
	// written behind the store's back.
	err := st.WithTx(ctx, func(tx *Tx) error {
		if _, err := st.InsertTrace(ctx, tx, sampleTrace("tr_1"), "test"); err != nil {
			return err
		}
		for _, q := range []string{
			`INSERT INTO users(name, role, created_at) VALUES ('alice', 'reviewer', 'x')`,
			`INSERT INTO batches(name, seed, per_item, created_at, state) VALUES ('b1', 1, 1, 'x', 'writing')`,
			`INSERT INTO assignments(item_id, reviewer, batch, position, status, updated_at)
				SELECT id, 'alice', 'b1', 0, 'submitted', 'x' FROM items LIMIT 1`,
			// An item whose copy of its trace's metadata went missing.
			`UPDATE items SET metaset = NULL WHERE turn = 1`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	problems, err := st.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, p := range problems {
		kinds[p.Kind] = true
	}
	if !kinds["label"] || !kinds["batch"] || !kinds["metadata"] {
		t.Errorf("problems = %v, want a label, a batch and a metadata problem", problems)
	}
}

// check reports an item whose in_batch (what sampling reads to leave out
// the items in a batch) disagrees with its status, either way.
func TestCheckFindsInBatchDisagreeingWithStatus(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		ctx := context.Background()
		statusFixture(t, st, 4)
		w := st.testW(t)
		for _, q := range []string{
			`UPDATE items SET in_batch = 0 WHERE id = 'it_1'`,
			`INSERT INTO items(id, trace_id, turn, input_hash, first_tool, n_calls, status, in_batch, updated_at)
				VALUES ('it_free', 'tr_bench', 900, 'hf', '', 0, 'new', 1, 'now')`,
		} {
			if _, err := w.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		want := []Problem{{"batch", "item it_1 is disputed but has in_batch 0"}, {"batch", "item it_free is new but has in_batch 1"}}
		p, err := st.Check(ctx)
		slices.SortFunc(p, func(a, b Problem) int { return strings.Compare(a.Detail, b.Detail) })
		if err != nil || !slices.Equal(p, want) {
			t.Errorf("check found %v (%v), want %v", p, err, want)
		}
	})
}

// check reads a store as it finds it (no upgrade): one from before in_batch
// is checked without that invariant, not failed with the database's error.
func TestCheckReadsAStoreFromBeforeInBatch(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	w, err := sqlite.ApplyMigrations(ctx, path, migrationsFS(t), func(v int) bool { return v < 21 })
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	st, err := OpenWith(ctx, path, Options{NoSchema: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if p, err := st.Check(ctx); err != nil || len(p) != 0 {
		t.Errorf("check of a store before in_batch: %v %v", p, err)
	}
}

// corrupt overwrites pages in the middle of the file, as a bad disk would.
func corrupt(t *testing.T, path string, pages int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	const page = 4096
	n := fi.Size() / page
	if n < int64(pages)+4 {
		t.Fatalf("file has %d pages, too few to corrupt %d", n, pages)
	}
	junk := []byte(strings.Repeat("\xde\xad\xbe\xef", page/4))
	for i := int64(0); i < int64(pages); i++ {
		if _, err := f.WriteAt(junk, (n/2-int64(pages)/2+i)*page); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCorruptFileFailsCheckAndRefusesWrites(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gt.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	fillTraces(t, st, 400)
	st.Close()
	// Fold the WAL into the file so the damage is where SQLite reads.
	db, _ := sql.Open("sqlite", "file:"+path)
	if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	corrupt(t, path, 20)

	st, err = OpenWith(ctx, path, Options{NoSchema: true})
	if err != nil {
		t.Fatal(err)
	}
	problems, err := st.Check(ctx)
	st.Close()
	if err != nil || len(problems) == 0 || problems[0].Kind != "integrity" {
		t.Fatalf("check of a corrupt file: %v %v", problems, err)
	}
	for _, p := range problems {
		// The invariants, read meanwhile, would read the damaged pages.
		if p.Kind != "integrity" {
			t.Errorf("check of a corrupt file lists %v beside its integrity problems", p)
		}
	}

	st, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// The last quick check is a day old for the clock of a write command.
	st.Now = func() time.Time { return time.Now().UTC().Add(25 * time.Hour) }
	err = st.AddUser(ctx, "alice", RoleReviewer)
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "goldtrace check") {
		t.Fatalf("write into a corrupt file: %v", err)
	}
	if strings.Contains(err.Error(), "malformed") {
		t.Errorf("raw SQLite text shown: %v", err)
	}
}

// A read that meets a corrupt page leaves a marker: the next write checks
// the file at once, not a day later.
func TestReadMeetingCorruptionMakesTheNextWriteCheck(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gt.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	fillTraces(t, st, 400)
	if err := st.AddUser(ctx, "alice", RoleReviewer); err != nil { // records a fresh quick check
		t.Fatal(err)
	}
	st.Close()
	db, _ := sql.Open("sqlite", "file:"+path)
	if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	corrupt(t, path, 20)
	st, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, err = st.TraceSummary(ctx, 5)
	if err = Explain(path, err); !errors.Is(err, ErrDamaged) {
		t.Fatalf("reading damaged traces: %v", err)
	}
	if err := st.AddUser(ctx, "bob", RoleReviewer); !errors.Is(err, ErrDamaged) {
		t.Fatalf("write after a damaged read: %v", err)
	}
}

func TestCheckDecodesEveryTraceBody(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		ctx := context.Background()
		fillTraces(t, st, 3)
		var ids []string
		if err := st.scanRows(ctx, func(r scanner) error {
			var id string
			ids = append(ids, id)
			return r.Scan(&ids[len(ids)-1])
		}, `SELECT id FROM traces ORDER BY id`); err != nil || len(ids) != 3 {
			t.Fatalf("traces %v: %v", ids, err)
		}
		// One frame cut short, one naming dictionary 77 (not stored), one
		// that decodes to something that is not JSON.
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderDictRaw(77, []byte(strings.Repeat("a dictionary of sorts ", 40))))
		if err != nil {
			t.Fatal(err)
		}
		dictFrame := enc.EncodeAll([]byte(`[{"role":"user","content":"a dictionary of sorts"}]`), nil)
		good := compressBody([]byte(`[]`))
		err = st.WithTx(ctx, func(tx *Tx) error {
			for i, body := range [][]byte{good[:len(good)-3], dictFrame, compressBody([]byte(`{not json`))} {
				if _, err := tx.ExecContext(ctx, `UPDATE traces SET body = ? WHERE id = ?`, body, ids[i]); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		problems, err := st.Check(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"cannot be decoded", "dictionary that is not stored", "not JSON"}
		var got []string
		for _, p := range problems {
			if p.Kind == "trace" {
				got = append(got, p.Detail)
			}
		}
		if len(got) != 3 {
			t.Fatalf("check found %d damaged bodies, want 3: %v", len(got), problems)
		}
		for i, w := range want {
			if !strings.Contains(got[i], ids[i]) || !strings.Contains(got[i], w) {
				t.Errorf("problem %d = %q, want %s and %q", i, got[i], ids[i], w)
			}
		}
	})
}
