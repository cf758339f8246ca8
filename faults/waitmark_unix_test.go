//go:build unix

package faults

import (
	"os"
	"syscall"
)

// markWaiting takes (or drops) the shared lock on DB-wait that says a
// writer waits for the write lock (store/write_waiters.go).
func markWaiting(f *os.File, on bool) {
	how := syscall.LOCK_UN
	if on {
		how = syscall.LOCK_SH
	}
	_ = syscall.Flock(int(f.Fd()), how)
}
