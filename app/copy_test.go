package app

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/internal/pgtest"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace/synth"
)

// copyDemo is a SQLite demo project with labels, gold, disputes and one
// exported version, and its path.
func copyDemo(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	a, p, closeStore, err := NewDemo(ctx, t.TempDir(), synth.Options{Seed: 4, N: 80})
	if err != nil {
		t.Fatal(err)
	}
	defer closeStore()
	if err := a.SeedDemoWork(ctx, &p, 4, 30, 30); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Export(ctx, actor(t, a, "carol"), "support", ExportOptions{Out: t.TempDir(), AllowPartial: true}, ExportIO{}); err != nil {
		t.Fatal(err)
	}
	return p.DB
}

// openFixed opens the project at path with a fixed clock.
func openFixed(t *testing.T, path string) (*App, *store.Store) {
	t.Helper()
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	st.Now = func() time.Time { return time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC) }
	return New(st), st
}

// exportBytes exports the next version of name and returns its JSONL and
// manifest.
func exportBytes(t *testing.T, a *App, name string, o ExportOptions) (jsonl, manifest []byte) {
	t.Helper()
	o.Out = t.TempDir()
	res, err := a.Export(context.Background(), actor(t, a, "carol"), name, o, ExportIO{})
	if err != nil {
		t.Fatal(err)
	}
	jsonl, err1 := os.ReadFile(filepath.Join(o.Out, dataset.FileName(name, res.Version)))
	manifest, err2 := os.ReadFile(filepath.Join(o.Out, dataset.ManifestName(name, res.Version)))
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	return jsonl, manifest
}

// TestCopySQLiteToPostgresAndBack: a project copied to PostgreSQL (the
// password in the DSN) and back to SQLite has every table's rows, its
// version byte-identical (checked by the copy itself), and exports the
// same bytes as the original on both engines; a copy never writes into a
// project's rows, and a failed copy leaves no file behind.
func TestCopySQLiteToPostgresAndBack(t *testing.T) {
	ctx := context.Background()
	u, err := url.Parse(pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), "pw-never-shown")
	pg := u.String()
	lite := copyDemo(t)
	var progress []string
	res, err := CopyProject(ctx, Actor{}, lite, pg, func(c store.CopiedTable) { progress = append(progress, c.Name) })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(fmt.Sprintf("%+v", res), "pw-never-shown") {
		t.Fatalf("the password shows in the result: %+v", res)
	}
	if len(res.Versions) != 1 || res.Versions[0].Ref != "support@v1" || res.Gold == nil || res.Gold.Records == 0 {
		t.Fatalf("what the copy checked: %+v", res)
	}
	// Every table of the schema is copied (the engine's bookkeeping aside),
	// in an order that puts a table after those it refers to.
	src, err := store.OpenWith(ctx, lite, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	rows, err := src.Reader().QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT IN ('schema_migrations', 'store_state') ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var n string
		rows.Scan(&n)
		tables = append(tables, n)
	}
	rows.Close()
	src.Close()
	slices.Sort(progress)
	if !slices.Equal(progress, tables) || len(tables) < 20 {
		t.Fatalf("copied tables %v, the schema has %v", progress, tables)
	}
	counts := map[string]int64{}
	for _, c := range res.Tables {
		counts[c.Name] = c.Rows
	}
	for _, name := range []string{"traces", "items", "labels", "gold", "disputes", "datasets", "dataset_items", "audit", "users", "assignments", "guides"} {
		if counts[name] == 0 {
			t.Errorf("copied no rows of %s: %v", name, counts)
		}
	}
	// The copy gathered the planner's statistics of what it wrote.
	var unanalyzed int
	_, pgStore := openFixed(t, pg)
	if err := pgStore.Reader().QueryRowContext(ctx, `SELECT count(*) FROM pg_class WHERE relname IN ('items', 'labels', 'assignments', 'traces') AND relkind = 'r' AND pg_table_is_visible(oid) AND reltuples < 0`).Scan(&unanalyzed); err != nil || unanalyzed != 0 {
		t.Fatalf("tables left without statistics after the copy: %d (%v)", unanalyzed, err)
	}
	// The same project exports the same bytes on both engines.
	liteApp, _ := openFixed(t, lite)
	pgApp, _ := openFixed(t, pg)
	o := ExportOptions{AllowPartial: true, Force: true, Message: "after the copy"}
	wantJSONL, wantManifest := exportBytes(t, liteApp, "support", o)
	gotJSONL, gotManifest := exportBytes(t, pgApp, "support", o)
	if string(gotJSONL) != string(wantJSONL) || string(gotManifest) != string(wantManifest) {
		t.Fatalf("v2 exported on PostgreSQL differs from SQLite's:\n%s\n%s", gotManifest, wantManifest)
	}
	// New audit rows and labels number on after the copied ones.
	if _, err := pgApp.Export(ctx, actor(t, pgApp, "carol"), "other", ExportOptions{Out: t.TempDir(), AllowPartial: true}, ExportIO{}); err != nil {
		t.Fatal(err)
	}
	// Back to SQLite: the copy of the copy checks out, v2 included.
	back := filepath.Join(t.TempDir(), "back.db")
	res, err = CopyProject(ctx, Actor{}, pg, back, nil)
	if err != nil || len(res.Versions) != 3 {
		t.Fatalf("copy back: %v %+v", err, res.Versions)
	}
	// A target with rows is refused, and left as it was.
	before, _ := os.ReadFile(back)
	if _, err := CopyProject(ctx, Actor{}, lite, back, nil); !errors.Is(err, store.ErrNotEmpty) {
		t.Fatalf("copy into a project: %v", err)
	}
	if after, _ := os.ReadFile(back); string(after) != string(before) {
		t.Fatal("a refused copy changed its target")
	}
	if _, err := CopyProject(ctx, Actor{}, lite, pg, nil); !errors.Is(err, store.ErrNotEmpty) || strings.Contains(err.Error(), "pw-never-shown") {
		t.Fatalf("copy into a PostgreSQL project: %v", err)
	}
}

// TestCopyRefusesATableItDoesNotKnow: a table in one schema and not the
// other fails the copy naming it, and the new target file is removed.
func TestCopyRefusesATableItDoesNotKnow(t *testing.T) {
	ctx := context.Background()
	lite := copyDemo(t)
	db, err := sql.Open("sqlite", lite)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `CREATE TABLE reviews_extra (id INTEGER PRIMARY KEY, note TEXT NOT NULL) STRICT`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	target := filepath.Join(t.TempDir(), "copy.db")
	_, err = CopyProject(ctx, Actor{}, lite, target, nil)
	if err == nil || !strings.Contains(err.Error(), "table reviews_extra") {
		t.Fatalf("copy of a project with an unknown table: %v", err)
	}
	if _, serr := os.Stat(target); !errors.Is(serr, os.ErrNotExist) {
		t.Fatalf("a failed copy left %s behind: %v", target, serr)
	}
}

// TestCopyNamesTheUpgradeASourceNeeds: copy never writes its source, so a
// source from an older goldtrace (a migration not yet recorded) is refused
// with the command that upgrades it, and nothing is copied.
func TestCopyNamesTheUpgradeASourceNeeds(t *testing.T) {
	ctx := context.Background()
	lite := copyDemo(t)
	db, err := sql.Open("sqlite", lite)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	target := filepath.Join(t.TempDir(), "copy.db")
	_, err = CopyProject(ctx, Actor{}, lite, target, nil)
	if err == nil || !strings.Contains(err.Error(), "needs a schema upgrade") || !strings.Contains(err.Error(), "goldtrace --db "+lite+" status") {
		t.Fatalf("copy of a source that needs an upgrade: %v", err)
	}
	if _, serr := os.Stat(target); !errors.Is(serr, os.ErrNotExist) {
		t.Fatalf("a refused copy left %s behind: %v", target, serr)
	}
}

// TestConcurrentExportsOnPostgres: leads exporting at once through two
// store handles (two pools, as two processes) get versions numbered 1, 2,
// … without a gap or a duplicate; an export that lost the race fails with
// ErrConflict and leaves nothing.
func TestConcurrentExportsOnPostgres(t *testing.T) {
	ctx := context.Background()
	pg := pgtest.DSN(t)
	if _, err := CopyProject(ctx, Actor{}, copyDemo(t), pg, nil); err != nil {
		t.Fatal(err)
	}
	apps := make([]*App, 2)
	for i := range apps {
		st, err := store.Open(ctx, pg)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		apps[i] = New(st)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var versions []int
	conflicts := 0
	// Six exports, three per handle, all at once; one that lost the race
	// (ErrConflict) is run again, as a lead would.
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func(a *App) {
			defer wg.Done()
			for try := 0; try < 200; try++ {
				res, err := a.Export(ctx, actor(t, a, "carol"), "race", ExportOptions{Out: t.TempDir(), AllowPartial: true, Force: true}, ExportIO{})
				mu.Lock()
				switch {
				case errors.Is(err, store.ErrConflict):
					conflicts++
				case err != nil:
					t.Errorf("export: %v", err)
				default:
					versions = append(versions, res.Version)
				}
				mu.Unlock()
				if !errors.Is(err, store.ErrConflict) {
					return
				}
				time.Sleep(time.Duration(try%7) * time.Millisecond)
			}
			t.Error("an export lost the race 200 times")
		}(apps[i%2])
	}
	wg.Wait()
	slices.Sort(versions)
	t.Logf("versions %v, %d conflicts retried", versions, conflicts)
	if len(versions) != 6 {
		t.Fatalf("versions %v: want 6", versions)
	}
	for i, v := range versions {
		if v != i+1 {
			t.Fatalf("versions %v: a gap or a duplicate", versions)
		}
	}
	stored, err := apps[0].st.DatasetVersions(ctx, "race")
	if err != nil || len(stored) != len(versions) {
		t.Fatalf("stored %d versions, exports got %v: %v", len(stored), versions, err)
	}
	for _, v := range stored {
		if _, content, manifest, err := apps[1].st.DatasetFiles(ctx, "race", v.Version); err != nil || len(content) == 0 || len(manifest) == 0 {
			t.Fatalf("race@v%d: %v", v.Version, err)
		}
	}
}

// projectTables counts the tables of the database at path (its schema's,
// on PostgreSQL; none when a SQLite file is not there).
func projectTables(t *testing.T, path string) int {
	t.Helper()
	ctx := context.Background()
	if !store.IsPostgres(path) {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return 0
		}
	}
	st, err := store.OpenWith(ctx, path, store.Options{NoSchema: true, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	q := `SELECT count(*) FROM sqlite_schema WHERE type = 'table'`
	if store.IsPostgres(path) {
		q = `SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()`
	}
	var n int
	if err := st.Reader().QueryRowContext(ctx, q).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestFailedCopyLeavesTheTargetAsItWas: a copy that fails midway, after it
// wrote some tables (its context cancelled; on PostgreSQL also a row the
// server refuses), leaves an empty PostgreSQL database without a table (the
// schema is made in the copy's transaction) and no new SQLite file, and a
// copy run again afterwards makes the whole project.
func TestFailedCopyLeavesTheTargetAsItWas(t *testing.T) {
	ctx := context.Background()
	lite := copyDemo(t)
	targets := map[string]func() string{"sqlite": func() string { return filepath.Join(t.TempDir(), "copy.db") }}
	if os.Getenv(pgtest.Env) != "" {
		targets["postgres"] = func() string { return pgtest.DSN(t) }
	}
	for engine, target := range targets {
		t.Run(engine+"/cancelled", func(t *testing.T) {
			to := target()
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			var written []string
			_, err := CopyProject(cctx, Actor{}, lite, to, func(c store.CopiedTable) {
				if written = append(written, c.Name); len(written) == 5 {
					cancel()
				}
			})
			if err == nil || len(written) < 5 || strings.Count(err.Error(), "\n") > 0 {
				t.Fatalf("copy cancelled after %v: %v", written, err)
			}
			if n := projectTables(t, to); n != 0 {
				t.Fatalf("a failed copy left %d tables in %s", n, to)
			}
			if _, err := CopyProject(ctx, Actor{}, lite, to, nil); err != nil {
				t.Fatalf("copy again: %v", err)
			}
		})
	}
	if os.Getenv(pgtest.Env) == "" {
		return
	}
	t.Run("postgres/refused row", func(t *testing.T) {
		// PostgreSQL's text holds no NUL character, SQLite's does: the last
		// audit entry (the audit log is among the last tables) is refused.
		bad := filepath.Join(t.TempDir(), "nul.db")
		body, err := os.ReadFile(lite)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bad, body, 0o600); err != nil {
			t.Fatal(err)
		}
		db, err := sql.Open("sqlite", bad)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.ExecContext(ctx, `UPDATE audit SET object = object || char(0) WHERE id = (SELECT max(id) FROM audit)`); err != nil {
			t.Fatal(err)
		}
		db.Close()
		to := pgtest.DSN(t)
		var written []string
		_, err = CopyProject(ctx, Actor{}, bad, to, func(c store.CopiedTable) { written = append(written, c.Name) })
		if err == nil || !strings.Contains(err.Error(), "copy table audit: one of its rows") || !strings.Contains(err.Error(), "NUL character") || len(written) == 0 {
			t.Fatalf("copy of a row PostgreSQL refuses, after %v: %v", written, err)
		}
		if said := ExplainError(to, err).Error(); !strings.Contains(said, "NUL character") || strings.Contains(said, "SQLSTATE") {
			t.Errorf("the command would say %q", said)
		}
		if n := projectTables(t, to); n != 0 {
			t.Fatalf("a failed copy left %d tables in %s", n, to)
		}
		if _, err := CopyProject(ctx, Actor{}, lite, to, nil); err != nil {
			t.Fatalf("copy again: %v", err)
		}
	})
}
