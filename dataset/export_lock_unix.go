//go:build unix

package dataset

import (
	"os"
	"syscall"
)

// lockExclusive takes an exclusive flock on path without waiting.
func lockExclusive(path string) (release func(), ok bool) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, false
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, false
	}
	// The file goes with the lock: nothing of the export is left in --out.
	return func() { os.Remove(path); f.Close() }, true
}
