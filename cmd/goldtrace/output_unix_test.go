//go:build unix

package main

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOutputToAPipeStaysAPipe: --out naming something that is not a
// regular file (a named pipe here; /dev/null is the common one) is written
// in place, never replaced by a rename (as root, score --out /dev/null
// replaced the machine's /dev/null with a plain file).
func TestOutputToAPipeStaysAPipe(t *testing.T) {
	dir := t.TempDir()
	gold := filepath.Join(dir, ciProject(t, dir))
	db := filepath.Join(dir, "goldtrace.db")
	fifo := filepath.Join(dir, "report.pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	got := make(chan int64, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- -1
			return
		}
		n, _ := io.Copy(io.Discard, f)
		f.Close()
		got <- n
	}()
	if _, errOut, code := expRun(t, db, "score", "--gold", gold, "--format", "json", "--out", fifo); code != 0 {
		t.Fatalf("score --out PIPE: exit %d %s", code, errOut)
	}
	if n := <-got; n <= 0 {
		t.Errorf("the pipe's reader got %d bytes", n)
	}
	fi, err := os.Lstat(fifo)
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("--out replaced the pipe: %v %v", fi.Mode(), err)
	}
}
