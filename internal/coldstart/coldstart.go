// Package coldstart keeps the garbage collector off while the process
// starts. Package initialisers allocated about 9 MB before main ran while
// glamour (chroma's lexer and style registries) and jsonschema (its
// metaschemas) were linked: enough for the collector to run two or three
// cycles, stop the world for each, and take about a third of the CPU the
// label screen spent before its first frame; on a loaded machine every
// stop waits for threads to be scheduled. Without them it is under 2 MB,
// still nothing worth collecting that early.
//
// A command resumes the collector (Resume) once it knows what it does: at
// once for work that allocates (import, export, serve…), after the first
// frame for a screen (ResumeAfter). It resumes by itself a second after
// the process started whatever happens. GOGC and GOMEMLIMIT keep their
// meaning: Resume restores the percentage the environment set, and a
// memory limit applies all along.
//
// The package imports nothing that is initialised late (runtime/debug is:
// packages initialise in import-path order as their imports allow, and
// "runtime/…" sorts after every module), so it runs before the
// initialisers it is for; it reaches the collector's setting through the
// runtime's own link to runtime/debug.
package coldstart

import (
	"sync"
	"sync/atomic"
	"time"
	_ "unsafe" // for go:linkname
)

// setGCPercent is runtime/debug.SetGCPercent's implementation, which the
// runtime provides under that name.
//
//go:linkname setGCPercent runtime/debug.setGCPercent
func setGCPercent(percent int32) int32

var (
	gcPercent int32 // as GOGC set it (-1 for off)
	once      sync.Once
	resumed   atomic.Bool
)

// backstop bounds how long the collector stays off when no command
// resumes it (a path that returns early, --help).
const backstop = time.Second

func init() {
	gcPercent = setGCPercent(-1)
	time.AfterFunc(backstop, Resume)
}

// Resume turns the collector back on, as GOGC set it. Only the first call
// does anything.
func Resume() {
	once.Do(func() {
		setGCPercent(gcPercent)
		resumed.Store(true)
	})
}

// ResumeAfter turns the collector back on d from now.
func ResumeAfter(d time.Duration) {
	time.AfterFunc(d, Resume)
}
