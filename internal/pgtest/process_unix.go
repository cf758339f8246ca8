//go:build unix

package pgtest

import (
	"errors"
	"syscall"
)

// processGone reports whether no process has this pid on this host.
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
