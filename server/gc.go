package server

import (
	"os"
	"runtime/debug"
)

// serveGCPercent is the garbage collector's target for a serve process:
// the heap may grow to three times what is live before a collection
// (Go's default is twice). A server's live heap is small and steady (tens
// of MB), and with each SSH action allocating its frames, rows and
// statuses, collections at the default took a tenth to a sixth of a busy
// replica's CPU; at 200 they take about half that, for a few tens of MB.
const serveGCPercent = 200

// TuneGC sets a serve process's garbage collector target (serveGCPercent),
// unless the operator chose one with GOGC.
func TuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(serveGCPercent)
	}
}
