package faults

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/internal/sqlitetest"
)

// TestHeldWriteLockDuringSubmitDraftAndQuit holds the write lock from
// another process longer than the busy timeout while a reviewer submits,
// the draft autosaves and the reviewer quits: the screen says the label is
// not stored yet and retries, quitting keeps the draft in the recovery file
// and exits 0, and the next session restores it into the database.
func TestHeldWriteLockDuringSubmitDraftAndQuit(t *testing.T) {
	t.Parallel()
	db, _ := project(t, t.TempDir(), 100, 10, "alice", "bob")
	item := sqlStrings(t, db, `SELECT item_id FROM assignments WHERE reviewer = 'alice' ORDER BY position LIMIT 1`)[0]
	l := startLabeler(t, db, "alice")
	l.waitFor(regexpMust(`\d+/\d+`), 10*time.Second)
	release := sqlitetest.HoldWriteLock(t, db, 20*time.Second)
	l.keys(noToolLabel("typed while the lock was held"))
	// The submit waits out the busy timeout, fails, and is retried.
	l.waitFor(regexpMust(`not submitted yet, retrying`), 40*time.Second)
	l.keys("\x03") // ctrl+c: save and quit
	code := l.wait(40 * time.Second)
	stderr := l.stderr.String()
	if code != 0 || !strings.Contains(stderr, "kept in") {
		t.Fatalf("quit under a held lock: exit %d, stderr %q", code, stderr)
	}
	noRawSQLite(t, l.text())
	noRawSQLite(t, stderr)
	recovery := db + ".recovery-alice.json"
	b, err := os.ReadFile(recovery)
	if err != nil || !strings.Contains(string(b), "typed while the lock was held") {
		t.Fatalf("recovery file: %v %s", err, b)
	}
	release()

	l = startLabeler(t, db, "alice")
	l.waitFor(regexpMust(`restored 1 unsaved draft`), 10*time.Second)
	l.keys("\x03")
	if code := l.wait(20 * time.Second); code != 0 {
		t.Fatalf("second session: exit %d: %s", code, l.stderr.String())
	}
	body := sqlStrings(t, db, `SELECT body FROM drafts WHERE item_id = ? AND reviewer = 'alice'`, item)
	var d struct{ Rationale string }
	if len(body) != 1 || json.Unmarshal([]byte(body[0]), &d) != nil || d.Rationale != "typed while the lock was held" {
		t.Fatalf("draft after restoring: %v", body)
	}
	if _, err := os.Stat(recovery); err == nil {
		t.Error("recovery file left after it was restored")
	}
	checkPasses(t, db)
	t.Logf("FIGURES held lock: submit retried on screen, quit exit 0 with the draft in the recovery file, restored at the next start")
}

// TestSIGHUPSavesTheDraft closes the reviewer's terminal (SIGHUP) with
// unsaved typing: the draft is in the database afterwards.
func TestSIGHUPSavesTheDraft(t *testing.T) {
	t.Parallel()
	onEngines(t, testSIGHUPSavesTheDraft)
}

func testSIGHUPSavesTheDraft(t *testing.T, engine string) {
	db, _ := projectOn(t, engine, t.TempDir(), 100, 10, "alice", "bob")
	item := sqlStrings(t, db, `SELECT item_id FROM assignments WHERE reviewer = 'alice' ORDER BY position LIMIT 1`)[0]
	l := startLabeler(t, db, "alice")
	l.waitFor(regexpMust(`\d+/\d+`), 10*time.Second)
	l.keys("(no\rhalf a thought")
	l.waitFor(regexp.MustCompile(`half a thought`), 5*time.Second)
	l.cmd.Process.Signal(hangup)
	l.wait(20 * time.Second)
	body := sqlStrings(t, db, `SELECT body FROM drafts WHERE item_id = ? AND reviewer = 'alice'`, item)
	if len(body) != 1 || !strings.Contains(body[0], "half a thought") {
		t.Fatalf("draft after SIGHUP: %v", body)
	}
	checkPasses(t, db)
}
