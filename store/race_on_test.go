//go:build race

package store

// raceEnabled: the race detector slows everything down; big tests shrink.
const raceEnabled = true
