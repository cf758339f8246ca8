package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// TestImportSIGHUPStopsAndIsRecorded runs the real binary, closes its
// "terminal" (SIGHUP) while it writes, and checks what a user sees: the
// unfinished chunk undone and said so, traces and status naming where the
// import stopped, and the same import run again finishing it.
func TestImportSIGHUPStopsAndIsRecorded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "goldtrace")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	var in bytes.Buffer
	const n = 4000
	for i := 0; i < n; i++ {
		fmt.Fprintf(&in, `{"id":"tr_%05d","tools":[{"name":"lookup","parameters":{"type":"object"}}],"messages":[{"role":"user","content":"question %d"},{"role":"assistant","tool_calls":[{"name":"lookup","arguments":{"q":%d}}]}]}`+"\n", i, i, i)
	}
	input := filepath.Join(dir, "traces.jsonl")
	if err := os.WriteFile(input, in.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "gt.db")
	run := func(args ...string) (string, string, error) {
		var out, errb bytes.Buffer
		cmd := exec.Command(bin, append([]string{"--db", db}, args...)...)
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		return out.String(), errb.String(), err
	}
	if _, stderr, err := run("init"); err != nil { // creates the database
		t.Fatalf("%v: %s", err, stderr)
	}

	var stderr bytes.Buffer
	imp := exec.Command(bin, "--db", db, "import", input)
	imp.Stderr = &stderr
	if err := imp.Start(); err != nil {
		t.Fatal(err)
	}
	// Hang up once the first chunks are committed.
	ro, err := sql.Open("sqlite", "file:"+db+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var written int
		err := ro.QueryRowContext(context.Background(), `SELECT written FROM imports`).Scan(&written)
		if err == nil && written > 0 {
			break
		}
		if time.Now().After(deadline) {
			imp.Process.Kill()
			t.Fatalf("the import never committed a chunk: %v\n%s", err, stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := imp.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	err = imp.Wait()
	msg := stderr.String()
	if err == nil {
		t.Skipf("the import finished before the hangup arrived:\n%s", msg)
	}
	// The input is written while it is read: where it stopped is a count
	// of traces and how much of the file was read then, or, if it had been
	// read to its end, a count of all.
	where := regexp.MustCompile(`traces\.jsonl: interrupted: stopped at (\d+ traces, (\d+)% of the file read|\d+ of 4000 traces) \(the unfinished chunk was undone\) — run the same import again to finish`).FindStringSubmatch(msg)
	if where == nil {
		t.Fatalf("import's stderr after SIGHUP:\n%s", msg)
	}
	if pct, _ := strconv.Atoi(where[2]); where[2] != "" && (pct < 1 || pct > 99) {
		t.Errorf("stopped with %d%% of the file read", pct)
	}
	var stored int
	if err := ro.QueryRow(`SELECT count(*) FROM traces`).Scan(&stored); err != nil || stored == 0 || stored == n {
		t.Fatalf("%d traces stored after the hangup (%v), want some but not all", stored, err)
	}
	if !strings.HasPrefix(where[1], fmt.Sprintf("%d ", stored)) {
		t.Errorf("stopped at %q, but %d traces are stored", where[1], stored)
	}
	for _, cmd := range [][]string{{"traces"}, {"status"}} {
		_, errOut, err := run(cmd...)
		want := fmt.Sprintf("import of %s stopped at %s — run the same import again to finish", input, where[1])
		if err != nil || !strings.Contains(errOut, want) {
			t.Errorf("%s: %v, stderr %q, want %q", cmd[0], err, errOut, want)
		}
	}
	out, errOut, err := run("import", input)
	if err != nil || !strings.Contains(out, fmt.Sprintf("imported %d traces, %d already stored", n-stored, stored)) {
		t.Fatalf("import again: %v\n%s%s", err, out, errOut)
	}
	if _, errOut, _ := run("traces"); strings.Contains(errOut, "stopped at") {
		t.Errorf("after finishing, traces still says: %s", errOut)
	}
}
