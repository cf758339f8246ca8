package faults

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// seed makes every random kill point reproducible: the log names it.
func seed(t *testing.T) *rand.Rand {
	s := time.Now().UnixNano()
	t.Logf("random seed %d", s)
	return rand.New(rand.NewSource(s))
}

// TestKillLabelerAfterSubmit kills the label screen with SIGKILL 50 times at
// random points around a submit: every label the screen acknowledged is
// stored, and the database passes check after every fifth kill and at the
// end.
func TestKillLabelerAfterSubmit(t *testing.T) {
	t.Parallel()
	onEngines(t, testKillLabelerAfterSubmit)
}

// On PostgreSQL 10 kills, not 50: the server's durability is not ours to
// test, the screen's acknowledgement is.
func testKillLabelerAfterSubmit(t *testing.T, engine string) {
	kills := 50
	if engine == "postgres" {
		kills = 10
	}
	db, _ := projectOn(t, engine, t.TempDir(), 400, 2*kills+10, "alice", "bob")
	rng := seed(t)
	acked := map[string]bool{}
	for i := 0; i < kills; i++ {
		l := startLabeler(t, db, "alice")
		l.waitFor(regexpMust(`\d+/\d+`), 10*time.Second)
		l.keys(noToolLabel(fmt.Sprintf("kill %d first", i)))
		for len(l.acknowledged()) == 0 {
			l.waitFor(submittedRE, 10*time.Second)
		}
		// The next label is typed and submitted; the kill lands at a
		// random point before, during or after its write.
		l.keys(noToolLabel(fmt.Sprintf("kill %d second", i)))
		time.Sleep(time.Duration(rng.Intn(60)) * time.Millisecond)
		l.kill()
		for _, item := range l.acknowledged() {
			acked[item] = true
		}
		noRawSQLite(t, l.text())
		noRawSQLite(t, l.stderr.String())
		if i%5 == 4 {
			checkPasses(t, db)
		}
	}
	checkPasses(t, db)
	lost := 0
	for item := range acked {
		if !labelStored(t, db, item, "alice") {
			lost++
			t.Errorf("acknowledged label of %s is not stored", item)
		}
	}
	stored := sqlCount(t, db, `SELECT count(*) FROM labels WHERE reviewer = 'alice'`)
	t.Logf("FIGURES labeler (%s): %d kills survived; %d labels acknowledged, %d stored (%d lost)", engine, kills, len(acked), stored, lost)
	addKills("labeler on "+engine, kills)
	addLabels(len(acked), len(acked)-lost)
	if stored < len(acked) {
		t.Errorf("%d labels stored, fewer than the %d acknowledged", stored, len(acked))
	}
}

// killAfter starts goldtrace with args and SIGKILLs it after d unless it
// ends first; it returns what it printed and whether it finished.
func killAfter(t *testing.T, db string, d time.Duration, args ...string) (stdout, stderr string, finished bool) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--db", db}, args...)...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.String(), errb.String(), err == nil
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		return out.String(), errb.String(), false
	}
}

// TestKillImport kills an import 20 times at random points: the database
// passes check after each kill, an import that reported success has all
// its traces, and importing again completes what a kill interrupted.
func TestKillImport(t *testing.T) {
	t.Parallel()
	const kills = 20
	dir := t.TempDir()
	db, _ := project(t, dir, 10, 0, "alice")
	file := filepath.Join(dir, "more.jsonl")
	must(t, db, "demo", "--write-traces", "300", file)
	// How long a whole import takes, and what it leaves, on a copy.
	scratch := filepath.Join(dir, "scratch.db")
	must(t, db, "backup", scratch)
	start := time.Now()
	must(t, scratch, "import", file)
	full := time.Since(start)
	want := sqlCount(t, scratch, `SELECT count(*) FROM traces`)
	rng := seed(t)
	completed := 0
	for i := 0; i < kills; i++ {
		stdout, stderr, finished := killAfter(t, db, time.Duration(rng.Int63n(int64(full))), "import", file)
		noRawSQLite(t, stderr)
		if finished {
			completed++
			if !strings.Contains(stdout, "imported") {
				t.Errorf("finished import printed %q", stdout)
			}
		}
		if completed > 0 {
			if n := sqlCount(t, db, `SELECT count(*) FROM traces`); n != want {
				t.Errorf("an import reported success, but %d traces are stored (want %d)", n, want)
			}
		}
		checkPasses(t, db)
	}
	must(t, db, "import", file)
	if n := sqlCount(t, db, `SELECT count(*) FROM traces`); n != want {
		t.Errorf("after a last import %d traces are stored (want %d)", n, want)
	}
	checkPasses(t, db)
	t.Logf("FIGURES import: %d kills survived (full import %s, %d finished before the kill)", kills, full.Round(time.Millisecond), completed)
	addKills("import", kills)
}

// goldProject is a project whose n sampled items are gold: alice and bob
// gave each the same label through labels import.
func goldProject(t *testing.T, dir string, n int) string {
	t.Helper()
	db, _ := project(t, dir, 300, n, "alice", "bob")
	h := sqlItems(t, db)
	file := filepath.Join(dir, "labels.jsonl")
	writeAgreedLabels(t, file, h, "alice", "bob")
	must(t, db, "labels", "import", file, "--as", "carol", "--for-others")
	if g := sqlCount(t, db, `SELECT count(*) FROM gold`); g != len(h) {
		t.Fatalf("%d gold items, want %d", g, len(h))
	}
	return db
}

// sqlItems lists the sampled items.
func sqlItems(t *testing.T, db string) []string {
	t.Helper()
	return sqlStrings(t, db, `SELECT item_id FROM batch_items ORDER BY position`)
}

// TestKillExport kills an export 20 times at random points: the database
// passes check after each kill, and the export after the last kill leaves
// every stored version's files in place, verified, with no temporary file.
func TestKillExport(t *testing.T) {
	t.Parallel()
	const kills = 20
	dir := t.TempDir()
	db := goldProject(t, dir, 150)
	out := filepath.Join(dir, "out")
	// How long a whole export takes, to another directory of a copy.
	scratch := filepath.Join(dir, "scratch.db")
	must(t, db, "backup", scratch)
	start := time.Now()
	must(t, scratch, "export", "support", "--as", "carol", "--out", filepath.Join(dir, "scratch-out"))
	full := time.Since(start)
	rng := seed(t)
	for i := 0; i < kills; i++ {
		_, stderr, _ := killAfter(t, db, time.Duration(rng.Int63n(int64(full)+int64(full)/2)), "export", "support", "--as", "carol", "--out", out)
		noRawSQLite(t, stderr)
		checkPasses(t, db)
	}
	r := must(t, db, "export", "support", "--as", "carol", "--out", out)
	versions := sqlStrings(t, db, `SELECT name || '-v' || version FROM datasets ORDER BY version`)
	if len(versions) == 0 {
		t.Fatalf("no version stored after the last export: %s", r.out)
	}
	for _, v := range versions {
		file := filepath.Join(out, v+".jsonl")
		if res := run(t, db, "verify", file); res.code != 0 {
			t.Errorf("verify %s: exit %d: %s%s", file, res.code, res.out, res.err)
		}
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left in --out: %s", e.Name())
		}
	}
	checkPasses(t, db)
	t.Logf("FIGURES export: %d kills survived (full export %s); %d version(s) stored, all with verified files", kills, full.Round(time.Millisecond), len(versions))
	addKills("export", kills)
}
