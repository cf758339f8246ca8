package store

import (
	"testing"
	"time"
	"unsafe"
)

// TestChunkPacer: a chunk stops taking work early enough for its commit
// (the longest recent one, forgotten slowly) to end within chunkTime, and
// never works less than an eighth of it.
func TestChunkPacer(t *testing.T) {
	p := newChunkPacer(importPace{chunkTraces: 4000, chunkTime: 200 * time.Millisecond, yield: 100 * time.Millisecond})
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if got := p.workUntil(start).Sub(start); got != 150*time.Millisecond {
		t.Errorf("first chunk works %v, want 150ms (a quarter kept for the commit)", got)
	}
	now := time.Now()
	p.committed(now.Add(-180*time.Millisecond), now.Add(-120*time.Millisecond), 60, 0) // a 120 ms commit
	if got := p.workUntil(start).Sub(start); got < 75*time.Millisecond || got > 81*time.Millisecond {
		t.Errorf("after a 120 ms commit a chunk works %v, want about 80ms", got)
	}
	if p.longest < 180*time.Millisecond || p.chunks != 1 {
		t.Errorf("longest %v chunks %d", p.longest, p.chunks)
	}
	// 60 records in 60 ms of work: the next chunk, working about 80 ms,
	// waits for about 80 before it begins.
	if got := p.want(); got < 75 || got > 81 {
		t.Errorf("the next chunk waits for %d records, want about 80", got)
	}
	q := newChunkPacer(importPace{chunkTraces: 50, chunkTime: 200 * time.Millisecond})
	if got := q.want(); got != 1 {
		t.Errorf("before any chunk the writer waits for %d records, want 1", got)
	}
	// A chunk that waited for the reader 50 of its 60 ms wrote 60 records
	// in 10 ms of work; no more than chunkTraces are waited for.
	q.committed(now.Add(-60*time.Millisecond), now, 60, 50*time.Millisecond)
	if got := q.want(); got != 50 {
		t.Errorf("after a fast chunk the writer waits for %d records, want chunkTraces (50)", got)
	}
	p.committed(time.Now(), time.Now(), 0, 0) // a fast commit lowers the estimate slowly
	if got := p.workUntil(start).Sub(start); got > 100*time.Millisecond {
		t.Errorf("one fast commit later a chunk works %v, want the estimate to fall slowly", got)
	}
	p.committed(now.Add(-time.Second), now.Add(-time.Second), 0, 0) // a commit longer than a chunk
	if got := p.workUntil(start).Sub(start); got != 25*time.Millisecond {
		t.Errorf("after a 1 s commit a chunk works %v, want the floor of 25ms", got)
	}
}

// Records of one import share their equal tool rows and tool lists, so
// that a queue of them does not hold a copy of each schema per trace.
func TestSharedRows(t *testing.T) {
	sr := newSharedRows()
	row := func() traceRows {
		return traceRows{toolset: string([]byte(`["h1"]`)), tools: []toolRow{{hash: "h1", name: "f", parameters: string([]byte(`{"type":"object"}`))}}}
	}
	a, b := row(), row()
	sr.share(&a)
	sr.share(&b)
	if unsafe.StringData(a.tools[0].parameters) != unsafe.StringData(b.tools[0].parameters) || unsafe.StringData(a.toolset) != unsafe.StringData(b.toolset) {
		t.Error("the second record keeps its own copies")
	}
	if b.tools[0] != a.tools[0] || b.toolset != a.toolset {
		t.Errorf("shared rows differ: %+v %+v", a, b)
	}
}
