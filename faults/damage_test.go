package faults

import (
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// corrupt overwrites n pages in the middle of the file, as a failing disk
// would, after folding the WAL into it.
func corrupt(t *testing.T, db string, n int) {
	t.Helper()
	h, err := sql.Open("sqlite", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	h.Close()
	f, err := os.OpenFile(db, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	pages := fi.Size() / 4096
	junk := []byte(strings.Repeat("\xde\xad\xbe\xef", 1024))
	for i := int64(0); i < int64(n); i++ {
		if _, err := f.WriteAt(junk, (pages/2-int64(n)/2+i)*4096); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCorruptPage overwrites 20 pages mid-file: check fails with a list,
// reads fail (or work) with one line naming the file, and writes are
// refused, naming goldtrace check. No raw SQLite text is shown.
func TestCorruptPage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, traces := project(t, dir, 600, 50, "alice", "bob")
	// The last quick check is two days old, as on a project left alone.
	h, err := sql.Open("sqlite", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Exec(`UPDATE store_state SET value = '2020-01-01T00:00:00Z' WHERE key = 'quick_check_at'`); err != nil {
		t.Fatal(err)
	}
	h.Close()
	corrupt(t, db, 20)
	for _, args := range [][]string{{"status"}, {"traces"}, {"batches"}} {
		r := run(t, db, args...)
		noRawSQLite(t, r.err)
		if r.code != 0 && !strings.Contains(r.err, db) {
			t.Errorf("%v failed without naming the file: %s", args, r.err)
		}
	}
	for _, args := range [][]string{{"users", "add", "dave", "--role", "reviewer"}, {"import", traces}} {
		r := run(t, db, args...)
		noRawSQLite(t, r.err)
		if r.code == 0 || !strings.Contains(r.err, "goldtrace check") {
			t.Errorf("%v on a damaged database: exit %d: %s", args, r.code, r.err)
		}
	}
	r := run(t, db, "check")
	if r.code != 1 || !strings.Contains(r.out, "integrity") {
		t.Errorf("check of a damaged database: exit %d: %s%s", r.code, r.out, r.err)
	}
	noRawSQLite(t, r.err)
}

// TestReadOnlyDatabase reads a database opened --read-only (and, when not
// running as root, one whose file and directory are read-only): every read
// command works, writes are refused in one line.
func TestReadOnlyDatabase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := goldProject(t, dir, 30)
	must(t, db, "export", "support", "--as", "carol", "--out", filepath.Join(dir, "out"))
	reads := [][]string{{"status"}, {"traces"}, {"batches"}, {"datasets"}, {"check"}, {"users", "list"},
		{"status", "--as", "carol"}, {"labels", "export", "--as", "carol"}, {"audit", "--as", "carol"},
		{"diff", "support@v1", "support@v1"}, {"backup", filepath.Join(dir, "copy.db")}}
	for _, args := range reads {
		must(t, db, append([]string{"--read-only"}, args...)...)
	}
	r := run(t, db, "--read-only", "users", "add", "dave", "--role", "reviewer")
	if r.code == 0 || !strings.Contains(r.err, "cannot be written") || strings.Count(strings.TrimSpace(r.err), "\n") > 0 {
		t.Errorf("write to a read-only database: exit %d: %q", r.code, r.err)
	}
	noRawSQLite(t, r.err)
	if os.Geteuid() == 0 {
		t.Log("running as root: file permissions do not stop root, so the read-only file case is covered by --read-only only")
		return
	}
	ro := filepath.Join(t.TempDir(), "ro")
	os.MkdirAll(ro, 0o755)
	if out, err := exec.Command("cp", db, filepath.Join(ro, "gt.db")).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	rodb := filepath.Join(ro, "gt.db")
	os.Chmod(rodb, 0o444)
	os.Chmod(ro, 0o555)
	t.Cleanup(func() { os.Chmod(ro, 0o755) })
	for _, args := range reads[:6] {
		must(t, rodb, args...)
	}
}
