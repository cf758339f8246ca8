package faults

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/internal/pgtest"
)

// TestRecoveryDraftReachesTheOtherReplica: two goldtrace serve processes
// on one PostgreSQL database, each with a cache directory of its own (as
// on two hosts). The database refuses alice's drafts (a trigger that
// raises) as her screen on replica 1 quits, so replica 1 keeps her draft
// in a recovery file, tries it every 2 s and says once why it cannot;
// once the database takes drafts again, replica 1 puts it back by itself,
// and alice, reconnecting to replica 2, finds it there.
func TestRecoveryDraftReachesTheOtherReplica(t *testing.T) {
	t.Parallel()
	tm := pgTeam(t, pgtest.DSN(t), 20, 6, "alice", "bob")
	h, err := sql.Open("pgx", tm.db)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for _, s := range []string{
		`CREATE FUNCTION refuse_drafts() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'drafts refused'; END $$`,
		`CREATE TRIGGER refuse_drafts BEFORE INSERT ON drafts FOR EACH ROW EXECUTE FUNCTION refuse_drafts()`,
	} {
		if _, err := h.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	cache1, cache2 := t.TempDir(), t.TempDir()
	r1 := tm.serveWith([]string{"XDG_CACHE_HOME=" + cache1})
	r2 := tm.serveWith([]string{"XDG_CACHE_HOME=" + cache2})

	alice := tm.screen(r1, "alice")
	alice.waitFor(regexpMust(`\d+/\d+`), 15*time.Second)
	alice.keys("(no\rdraft the database refused")
	alice.waitFor(regexpMust(`draft not saved`), 10*time.Second) // the autosave failed
	alice.keys("\x03")                                           // ctrl+c: save and quit
	alice.wait(20 * time.Second)
	kept, _ := filepath.Glob(filepath.Join(cache1, "goldtrace", "*.recovery-alice.json"))
	if len(kept) != 1 {
		t.Fatalf("replica 1 kept alice's draft in %v; her ssh said %q", kept, alice.stderr.String())
	}
	if n := tm.count(`SELECT count(*) FROM drafts WHERE reviewer = 'alice'`); n != 0 {
		t.Fatalf("%d drafts of alice stored through the trigger", n)
	}
	if said := alice.stderr.String(); !strings.Contains(said, "the server keeps it") || strings.Contains(said, cache1) {
		t.Errorf("alice's ssh said %q: want the server keeping her draft, and no server path", said)
	}
	// Replica 1 tries every 2 s, and says why it cannot once.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(r1.log.String(), "not restored yet"); {
		if time.Now().After(deadline) {
			t.Fatalf("replica 1 never tried to restore the draft: %s", r1.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(4500 * time.Millisecond) // two more tries
	if n := strings.Count(r1.log.String(), "not restored yet"); n != 1 {
		t.Errorf("replica 1 said %d times that the draft is not restored yet: %s", n, r1.log.String())
	}
	if _, err := h.Exec(`DROP TRIGGER refuse_drafts ON drafts`); err != nil {
		t.Fatal(err)
	}
	allowed := time.Now()
	for tm.count(`SELECT count(*) FROM drafts WHERE reviewer = 'alice'`) != 1 {
		if time.Since(allowed) > 10*time.Second {
			t.Fatalf("alice's draft is not in the database 10 s after it takes drafts again: %s", r1.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	took := time.Since(allowed)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if left, _ := filepath.Glob(filepath.Join(cache1, "goldtrace", "*.recovery-*.json")); len(left) == 0 {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("recovery files left after the restore: %v", left)
		}
	}
	again := tm.screen(r2, "alice")
	again.waitFor(regexpMust(`draft the database refused`), 15*time.Second)
	t.Logf("FIGURES replicas: a recovery draft reached the database %s after it took drafts again, and alice's screen on the other replica", took.Round(time.Millisecond))
	if !strings.Contains(r1.log.String(), "restored 1 unsaved draft(s) of alice") {
		t.Errorf("replica 1 did not say it restored alice's draft: %s", r1.log.String())
	}
	// The trigger's own words are in replica 1's log (its operator's, not a
	// reviewer's): a refusal no rule of goldtrace's explains.
	for _, text := range []string{alice.text(), alice.stderr.String(), again.text(), r2.log.String()} {
		noRawDatabaseError(t, text)
	}
}

// TestServeRestoresRecoveryFilesOnStart: a recovery file left where a
// serve process keeps them (beside a SQLite database; for PostgreSQL, in
// its cache directory) by a screen that could not save, on either engine,
// is back in the database's drafts within seconds of serve starting, and
// the file is removed.
func TestServeRestoresRecoveryFilesOnStart(t *testing.T) {
	onEngines(t, func(t *testing.T, engine string) {
		if _, err := exec.LookPath("ssh-keygen"); err != nil {
			t.Skip("no ssh-keygen on PATH: install openssh-client to run this test")
		}
		dir := t.TempDir()
		db, _ := projectOn(t, engine, dir, 10, 3, "alice", "bob")
		cache := t.TempDir()
		base := db
		if engine == "postgres" {
			u, err := url.Parse(db)
			if err != nil {
				t.Fatal(err)
			}
			base = filepath.Join(cache, "goldtrace", strings.NewReplacer("/", "_", ":", "_").Replace(u.Host+u.Path))
			if err := os.MkdirAll(filepath.Dir(base), 0o700); err != nil {
				t.Fatal(err)
			}
		}
		item := sqlStrings(t, db, `SELECT item_id FROM assignments WHERE reviewer = 'alice' ORDER BY position LIMIT 1`)[0]
		file := base + ".recovery-alice.json"
		kept := fmt.Sprintf(`{"reviewer": "alice", "drafts": [{"item": %q, "body": {"no_tool": true, "calls": [], "rationale": "kept while the database was away"}, "seconds": 12, "saved_at": %q}]}`,
			item, time.Now().UTC().Format(time.RFC3339Nano))
		if err := os.WriteFile(file, []byte(kept), 0o600); err != nil {
			t.Fatal(err)
		}
		tm := &team{t: t, dir: dir, db: db, hostKey: filepath.Join(dir, "host_key"), known: filepath.Join(dir, "known_hosts")}
		r := tm.serveWith([]string{"XDG_CACHE_HOME=" + cache})
		for deadline := time.Now().Add(10 * time.Second); sqlCount(t, db, `SELECT count(*) FROM drafts WHERE reviewer = 'alice' AND item_id = ?`, item) != 1; {
			if time.Now().After(deadline) {
				t.Fatalf("the recovery file is not in the database 10 s after serve started: %s", r.log.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
				break
			} else if time.Now().After(deadline) {
				t.Fatalf("%s is still there after its draft was restored", file)
			}
		}
		// serve says so once the file is restored and removed: a moment
		// after the two checks above may have seen them.
		for deadline := time.Now().Add(5 * time.Second); !strings.Contains(r.log.String(), "restored 1 unsaved draft(s) of alice"); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("serve did not say it restored alice's draft: %s", r.log.String())
			}
		}
	})
}
