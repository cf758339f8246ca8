// Package bulk is what a bulk write means to every store engine: the pace
// at which its chunks hold the write lock, and the mark on the context its
// chunks run under (a bulk writer's chunks are not writers waiting).
package bulk

import (
	"context"
	"time"
)

// Pace bounds how long a bulk write holds the write lock at a time: a
// transaction stops taking work once it has run chunkTime, and its commit
// keeps the whole hold under 250 ms; the lock is then left free for yield,
// long enough for a writer waiting on its busy timeout (SQLite retries
// every 100 ms at most) to get in.
type Pace struct {
	ChunkTime time.Duration
	Yield     time.Duration
	// full commits every chunk with synchronous=FULL (a WAL fsync each,
	// which on a loaded disk alone can pass the bound). Without it chunks
	// commit with synchronous=NORMAL, and the write-ahead log is synced
	// once the last chunk is in: every bulk writer is all or nothing
	// (a batch 'writing', a version 'staging', labels taken back), so a
	// crash that loses the last unsynced chunks loses nothing anyone was
	// told was written, and the database stays consistent (WAL).
	Full bool
	// Held, when set, is told how long each transaction worked (its
	// statements) and held the lock (from its first statement to the end of
	// its commit); tests measure with it.
	Held func(work, total time.Duration)
	// Between, when set, runs after each transaction but the last, with
	// the lock free (a checkpoint of the log).
	Between func()
}

// DefaultPace is a bulk write's pace on a shared database.
var DefaultPace = Pace{ChunkTime: 80 * time.Millisecond, Yield: 110 * time.Millisecond}

type key struct{}

// Write marks the transactions run under ctx as a bulk writer's chunks.
func Write(ctx context.Context) context.Context {
	return context.WithValue(ctx, key{}, true)
}

// Is reports whether ctx carries Write's mark.
func Is(ctx context.Context) bool { return ctx.Value(key{}) != nil }
