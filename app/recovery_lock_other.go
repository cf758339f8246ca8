//go:build !unix

package app

import "sync"

// recoveryMu orders this process's changes to recovery files (no flock
// here to order them with other processes').
var recoveryMu sync.Mutex

// withRecoveryLock runs fn holding the process's recovery lock.
func withRecoveryLock(_ string, fn func() error) error {
	recoveryMu.Lock()
	defer recoveryMu.Unlock()
	return fn()
}
