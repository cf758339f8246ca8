package store

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/sampling"
	"github.com/goldtrace/goldtrace/store/sqlite"
)

// keysOf reads every item's input hash and key.
func keysOf(t *testing.T, st *Store) map[string][3]any {
	t.Helper()
	rows, err := st.Reader().QueryContext(context.Background(), `SELECT id, input_hash, input_hi, input_lo FROM items`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][3]any{}
	for rows.Next() {
		var id, h string
		var hi, lo int64
		if err := rows.Scan(&id, &h, &hi, &lo); err != nil {
			t.Fatal(err)
		}
		out[id] = [3]any{h, hi, lo}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// checkKeys fails unless every item's key is what inputKeys makes of its
// hash (0 and 0 for a hash that is not 64 lowercase hex digits).
func checkKeys(t *testing.T, st *Store, want int) {
	t.Helper()
	got := keysOf(t, st)
	if len(got) != want {
		t.Fatalf("%d items, want %d", len(got), want)
	}
	for id, k := range got {
		hi, lo := inputKeys(k[0].(string))
		if k[1] != hi || k[2] != lo {
			t.Errorf("item %s, hash %s: key %d, %d, want %d, %d", id, k[0], k[1], k[2], hi, lo)
		}
	}
}

// oddHashes are input hashes an item may hold that have no key: not 64
// hex digits, or not lowercase.
var oddHashes = []string{"plain", "", strings.Repeat("F", 64), strings.Repeat("a", 63) + "g", strings.Repeat("0", 64)}

// The migration gives the items of an older store the keys goldtrace
// writes for new ones (trace.InputHash's 64 lowercase hex digits, with
// high bits set and not; other hashes get none), and sampling reads it.
func TestInputKeysMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	migrations := migrationsFS(t)
	entries, err := fs.ReadDir(migrations, ".")
	if err != nil {
		t.Fatal(err)
	}
	var before int // the number of the migration before input_keys
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), "_input_keys.sql") {
			fmt.Sscanf(e.Name(), "%d", &before)
			before--
		}
	}
	w, err := sqlite.ApplyMigrations(ctx, path, migrations, func(v int) bool { return v <= before })
	if err != nil {
		t.Fatal(err)
	}
	var hashes []string
	for i := range 300 {
		hashes = append(hashes, fmt.Sprintf("%016x%048x", uint64(i)*0x9e3779b97f4a7c15, i*i))
	}
	hashes = append(hashes, oddHashes...)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := w.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`INSERT INTO traces(id, content_hash, messages, imported_at) VALUES ('tr_old', 'h', '[]', 'then')`)
	for i, h := range hashes {
		exec(`INSERT INTO items(id, trace_id, turn, input_hash, first_tool, n_calls, ts_unix, status)
			VALUES (?, 'tr_old', ?, ?, 'refund', 1, ?, ?)`, fmt.Sprint("it_", i), i, h, 1_777_000_000+i%7, []string{"new", "new", "sampled"}[i%3])
	}
	w.Close()
	// The user is told before the upgrade begins; a new store says nothing.
	var told []string
	st, err := OpenWith(ctx, path, Options{Upgrading: func(line string) { told = append(told, line) }})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// The migrations in_batch and sampling_by_tool, which follow, say so too.
	if len(told) != 3 || !strings.Contains(told[0], path) || !strings.Contains(told[0], "_input_keys.sql") || !strings.Contains(told[0], "sampling index") ||
		!strings.Contains(told[1], "_in_batch.sql") || !strings.Contains(told[2], "_sampling_by_tool.sql") {
		t.Errorf("told %q, want one line for each migration, naming the database, the migration and what it does", told)
	}
	var flagged int
	if err := st.r.QueryRowContext(ctx, `SELECT count(*) FROM items WHERE in_batch = CASE WHEN status = 'new' THEN 0 ELSE 1 END`).Scan(&flagged); err != nil || flagged != len(hashes) {
		t.Errorf("%d of %d items have in_batch set as their status says (%v)", flagged, len(hashes), err)
	}
	fresh, err := OpenWith(ctx, filepath.Join(t.TempDir(), "new.db"), Options{Upgrading: func(line string) { t.Errorf("a new store told %q", line) }})
	if err != nil {
		t.Fatal(err)
	}
	fresh.Close()
	checkKeys(t, st, len(hashes))
	// A scan reads every item, the hash of those without a key.
	stored := map[int64]string{}
	all, err := st.r.QueryContext(ctx, `SELECT rowid, input_hash, status FROM items`)
	if err != nil {
		t.Fatal(err)
	}
	inBatch := map[int64]bool{}
	for all.Next() {
		var row int64
		var h, status string
		if err := all.Scan(&row, &h, &status); err != nil {
			t.Fatal(err)
		}
		stored[row], inBatch[row] = h, status != "new"
	}
	all.Close()
	if rows := scanRows(t, st, CandidateFilter{}); len(rows) != len(hashes) {
		t.Errorf("scanned %d rows, want %d", len(rows), len(hashes))
	}
	// Drawing everything: every item not in a batch is drawn, a
	// duplicate or excluded (every third item is in a batch, status
	// 'sampled'); the hashes without a key are drawn with their hash.
	s := sampling.NewSampler(1, 1000, true)
	if err := st.DrawCandidates(ctx, CandidateFilter{ExcludeSampled: true}, s); err != nil {
		t.Fatal(err)
	}
	got, err := s.Result(sampling.AllocProportional, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(hashes) - len(hashes)/3; len(got.Items)+s.Duplicates()+s.Excluded() != want {
		t.Errorf("drew %d, %d duplicates, %d excluded: want %d in all (the items not in a batch)", len(got.Items), s.Duplicates(), s.Excluded(), want)
	}
	odd := 0
	for _, c := range got.Items {
		if inBatch[c.Row] {
			t.Errorf("row %d is in a batch", c.Row)
		}
		if hi, lo := inputKeys(stored[c.Row]); hi == 0 && lo == 0 {
			odd++
			if c.InputHash != stored[c.Row] {
				t.Errorf("row %d: hash %q, stored %q", c.Row, c.InputHash, stored[c.Row])
			}
		}
	}
	if odd == 0 {
		t.Error("no item without a key drawn")
	}
	// And when no item matches.
	s = sampling.NewSampler(1, 1000, true)
	if err := st.DrawCandidates(ctx, CandidateFilter{ExcludeSampled: true, Where: []sampling.Condition{{Key: "tool", Value: "no such tool"}}}, s); err != nil {
		t.Fatalf("a scan matching nothing: %v", err)
	}
	if got, _ := s.Result(sampling.AllocProportional, 1); len(got.Items) != 0 {
		t.Errorf("a scan matching nothing drew %d", len(got.Items))
	}
}

// The keys each engine writes with a new item match inputKeys, and the
// migration's SQL makes the same of the hashes (PostgreSQL's migration
// is run again over the stored items: this test cannot build an older
// PostgreSQL schema).
func TestInputKeysOnEngines(t *testing.T) {
	forEngines(t, func(t *testing.T, engine string) {
		st := openEngine(t, engine)
		ctx := context.Background()
		day := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
		var traces []string
		for i := range 40 {
			tr := smpStoreTrace(fmt.Sprint("tr_", i), day.Add(time.Duration(i)*time.Minute), "", fmt.Sprint("question ", i), "refund")
			smpInsert(t, st, tr)
			traces = append(traces, tr.ID)
		}
		w := st.testW(t)
		for i, h := range oddHashes {
			if _, err := w.ExecContext(ctx, `INSERT INTO items(id, trace_id, turn, input_hash, first_tool, n_calls, ts_unix, status)
				VALUES (?, ?, 9, ?, 'refund', 1, 1777000000, 'new')`, fmt.Sprint("it_odd", i), traces[i], h); err != nil {
				t.Fatal(err)
			}
		}
		n := 40 + len(oddHashes)
		checkKeys(t, st, n)
		dir := "migrations"
		if engine == "postgres" {
			dir = "migrations_postgres"
		}
		entries, err := fs.ReadDir(migrationFiles, dir)
		if err != nil {
			t.Fatal(err)
		}
		var update string
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), "_input_keys.sql") {
				b, err := fs.ReadFile(migrationFiles, dir+"/"+e.Name())
				if err != nil {
					t.Fatal(err)
				}
				s := string(b)
				update = s[strings.Index(s, "UPDATE items SET"):]
				update = update[:strings.Index(update, ";")]
			}
		}
		if update == "" {
			t.Fatal("no UPDATE in the input_keys migration")
		}
		for _, q := range []string{`UPDATE items SET input_hi = 0, input_lo = 0`, update} {
			if _, err := w.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		checkKeys(t, st, n)
	})
}
