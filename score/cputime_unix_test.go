//go:build unix

package score

import (
	"syscall"
	"time"
)

// processCPU is the user+system CPU time of the process so far: on a shared
// machine it measures the work, where wall time also measures the queue.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
