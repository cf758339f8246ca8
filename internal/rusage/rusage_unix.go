//go:build unix

// Package rusage reads what a finished child process used, for benchmarks
// that run the real binary.
package rusage

import (
	"os"
	"runtime"
	"syscall"
)

// PeakRSS is the most memory a finished process held, in bytes (0 where
// the system does not say).
func PeakRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return ru.Maxrss // bytes there
	}
	return ru.Maxrss * 1024 // kilobytes on Linux
}
