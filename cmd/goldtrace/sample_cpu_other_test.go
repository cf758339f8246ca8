//go:build !unix

package main

import "time"

// smpCPUTime is unavailable here; the benchmark reports 0 cpu-s/op.
func smpCPUTime() time.Duration { return 0 }
