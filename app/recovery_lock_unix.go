//go:build unix

package app

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// recoveryMu orders this process's changes to recovery files; the flock
// on their directory orders them with other processes' on this host (serve
// replicas sharing a cache directory, a local goldtrace label).
var recoveryMu sync.Mutex

// withRecoveryLock runs fn holding the recovery lock of path's directory.
// Where the directory cannot be locked, fn runs under the process's lock
// alone.
func withRecoveryLock(path string, fn func() error) error {
	recoveryMu.Lock()
	defer recoveryMu.Unlock()
	dir, err := os.Open(filepath.Dir(path))
	if err != nil {
		return fn()
	}
	defer dir.Close()
	if err := syscall.Flock(int(dir.Fd()), syscall.LOCK_EX); err != nil {
		return fn()
	}
	defer syscall.Flock(int(dir.Fd()), syscall.LOCK_UN)
	return fn()
}
