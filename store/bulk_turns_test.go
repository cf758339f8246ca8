package store

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// writerTurns follows a writer beside a bulk write by the order of events
// rather than by the clock, so that a loaded machine (or the race
// detector) slows both alike without changing the verdict: the bulk write
// counts its chunks as they commit (chunkDone), and each of the writer's
// writes records how many had committed when it began and when it ended.
type writerTurns struct {
	chunks atomic.Int64
	first  chan struct{} // closed at the first chunk's commit
	once   sync.Once
	// spans: per write, the chunks committed at its start and at its end.
	spans [][2]int64
	err   error
}

func newWriterTurns() *writerTurns { return &writerTurns{first: make(chan struct{})} }

// chunkDone is told of each chunk the bulk write committed.
func (w *writerTurns) chunkDone() {
	w.chunks.Add(1)
	w.once.Do(func() { close(w.first) })
}

// run writes with write from the bulk write's first commit until done is
// closed (or a write fails), pausing a little between writes so that they
// arrive at any point of a chunk.
func (w *writerTurns) run(done <-chan struct{}, write func(i int) error) {
	select {
	case <-w.first:
	case <-done:
		return
	}
	for i := 0; ; i++ {
		select {
		case <-done:
			return
		default:
		}
		began := w.chunks.Load()
		if err := write(i); err != nil {
			w.err = err
			return
		}
		w.spans = append(w.spans, [2]int64{began, w.chunks.Load()})
		time.Sleep(5 * time.Millisecond)
	}
}

// check asserts, once run returned and the bulk write is done, that the
// writer got in between the bulk write's chunks, again and again (not at
// its end), and that no write waited through more than maxSpan chunks.
func (w *writerTurns) check(t *testing.T, maxSpan int64) {
	t.Helper()
	if w.err != nil {
		t.Fatalf("a write beside the bulk write failed: %v", w.err)
	}
	total := w.chunks.Load()
	if total < 5 {
		t.Fatalf("the bulk write took %d chunks: too few to see writes between them (make it larger)", total)
	}
	// A write that ended with k chunks committed, when the bulk write went
	// on for two more, got in while it ran: chunk k+2 began after chunk
	// k+1 committed, which was after the write ended.
	between := map[int64]bool{}
	for _, s := range w.spans {
		if s[1] <= total-2 {
			between[s[1]] = true
		}
		if s[1]-s[0] > maxSpan {
			t.Errorf("a write waited through %d of the bulk write's chunks (from %d to %d of %d)", s[1]-s[0], s[0], s[1], total)
		}
	}
	if want := min(int(total)-2, 3); len(between) < want {
		t.Errorf("the writer got in between the bulk write's chunks %d times in %d chunks (%d writes); want %d at least", len(between), total, len(w.spans), want)
	}
}
