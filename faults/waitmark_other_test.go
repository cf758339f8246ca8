//go:build !unix

package faults

import "os"

// markWaiting: without flock, bulk writers always pause (store/write_waiters.go).
func markWaiting(*os.File, bool) {}
