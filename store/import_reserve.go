package store

import (
	"os"
	"path/filepath"
)

// A failed import undoes what it wrote; on a full disk the undo needs room
// too (the log's frames checkpointed into the database, the deletions'
// pages). An import therefore holds some of the disk beside the database
// while it writes and frees it for its undo: a file of space allocated but
// never written, removed as soon as it is created where the system allows
// (Unix), so that none outlives the process.

// spaceReserve is disk space held for an import's undo.
type spaceReserve struct{ f *os.File }

// reserveSpace holds up to want bytes (at least 1 MB, as much as the disk
// allows) in dir. When even that cannot be held, the import runs without.
func reserveSpace(dir string, want int64) *spaceReserve {
	f, err := os.CreateTemp(dir, ".goldtrace-import-*.reserve")
	if err != nil {
		return &spaceReserve{}
	}
	_ = os.Remove(f.Name()) // Unix: the open file lives on, unnamed
	for n := want; n >= 1<<20; n /= 2 {
		if allocate(f, n) == nil {
			return &spaceReserve{f: f}
		}
	}
	r := &spaceReserve{f: f}
	r.release()
	return &spaceReserve{}
}

// undoReserve is how much an import holds for its undo: the log written
// between two checkpoints at most, and no more than the input's size
// (unknown: 0).
func undoReserve(inputSize int64) int64 {
	if inputSize <= 0 {
		return checkpointLog
	}
	return min(checkpointLog, max(inputSize, 4<<20))
}

// release frees the space; releasing again does nothing.
func (r *spaceReserve) release() {
	if r.f == nil {
		return
	}
	name := r.f.Name()
	r.f.Close()
	r.f = nil
	_ = os.Remove(filepath.Clean(name)) // where the first removal was refused (Windows)
}
