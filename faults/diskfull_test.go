package faults

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiskFull runs a project on a 6 MB tmpfs and imports more than fits:
// the import fails with one line saying the disk is full (and what stayed
// stored if the full disk refused its undo too), nothing acknowledged
// before is lost, and the database passes check. It needs to
// mount a tmpfs (root, or a user namespace allowing it) and skips saying so
// otherwise.
func TestDiskFull(t *testing.T) {
	t.Parallel()
	mnt := smallTmpfs(t)
	outside := t.TempDir()
	db := filepath.Join(mnt, "gt.db")
	small := filepath.Join(outside, "small.jsonl")
	big := filepath.Join(outside, "big.jsonl")
	must(t, db, "demo", "--write-traces", "100", small)
	must(t, db, "import", small)
	must(t, db, "users", "add", "alice", "--role", "reviewer")
	must(t, db, "users", "add", "bob", "--role", "reviewer")
	must(t, db, "sample", "--n", "20", "--seed", "1", "--reviewers", "alice,bob")
	before := sqlCount(t, db, `SELECT count(*) FROM traces`)
	must(t, db, "demo", "--write-traces", "4000", big)
	r := run(t, db, "import", big)
	if r.code == 0 {
		fi, _ := os.Stat(db)
		t.Skipf("the import fit in the tmpfs (%d bytes): nothing learned", fi.Size())
	}
	noRawSQLite(t, r.err)
	errLine := lastLine(r.err)
	if !strings.HasPrefix(errLine, "goldtrace: ") || !strings.Contains(errLine, "full") {
		t.Errorf("import onto a full disk: %q", r.err)
	}
	// The import undoes itself, unless the full disk refuses the undo
	// too (deleting needs room in the WAL); then it must say what stayed.
	if n := sqlCount(t, db, `SELECT count(*) FROM traces`); n != before && !strings.Contains(r.err, "stay stored") {
		t.Errorf("%d traces after the failed import, %d before, and the error does not say so: %s", n, before, r.err)
	}
	checkPasses(t, db)
	must(t, db, "status")
	if n := sqlCount(t, db, `SELECT count(*) FROM assignments`); n != 40 {
		t.Errorf("%d assignments after the full disk, 40 before", n)
	}
	t.Logf("FIGURES disk full: import failed with %q; %d traces kept; check passes", errLine, before)
}

// TestDiskFullDuringImportWrites fills a 6 MB tmpfs with an import whose
// store does not fit: its writes fail, its undo removes what it wrote and
// the import's record, and the error says nothing was imported.
func TestDiskFullDuringImportWrites(t *testing.T) {
	t.Parallel()
	mnt := smallTmpfs(t)
	db := filepath.Join(mnt, "gt.db")
	in := filepath.Join(t.TempDir(), "in.jsonl")
	must(t, db, "demo", "--write-traces", "2500", in) // ~14 MB of input, ~7 MB stored
	r := run(t, db, "import", in)
	if r.code == 0 {
		fi, _ := os.Stat(db)
		t.Skipf("the import fit in the tmpfs (%d bytes): nothing learned", fi.Size())
	}
	noRawSQLite(t, r.err)
	if !strings.Contains(r.err, "disk is full") || !strings.Contains(r.err, "nothing imported") {
		t.Errorf("import onto a full disk: %q", r.err)
	}
	if n := sqlCount(t, db, `SELECT count(*) FROM traces`); n != 0 {
		t.Errorf("%d traces stayed after the failed import: %s", n, r.err)
	}
	if n := sqlCount(t, db, `SELECT count(*) FROM imports`); n != 0 {
		t.Errorf("the failed import is still recorded as unfinished")
	}
	checkPasses(t, db)
	t.Logf("FIGURES disk full while writing: %q", lastLine(r.err))
}

// smallTmpfs mounts a 6 MB tmpfs for the test, or skips it saying why not.
func smallTmpfs(t *testing.T) string {
	t.Helper()
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs here (%v: %s): the disk-full case is not run", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() { exec.Command("umount", "-l", mnt).Run() })
	return mnt
}
