package store

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/trace"
)

// TestImportSpoolRoundTrip spools traces that share tools, have none, have
// no timestamp, and more distinct tools than the spool remembers, and reads
// back exactly the rows encodeRows made.
func TestImportSpoolRoundTrip(t *testing.T) {
	var want []traceRows
	enc := trace.NewEncoder()
	add := func(tr trace.Trace) {
		r, err := encodeRows(enc, nil, tr)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, r)
	}
	add(sampleTrace("a"))
	add(sampleTrace("b")) // the same tool again: spooled by its hash
	bare := sampleTrace("c")
	bare.Tools, bare.Metadata, bare.Timestamp = nil, nil, time.Time{}
	add(bare)
	many := sampleTrace("d")
	for i := 0; i < spoolToolLimit+10; i++ {
		many.Tools = append(many.Tools, trace.Tool{Name: fmt.Sprintf("t%d", i)})
	}
	add(many)
	add(many) // past the limit, some tools are spooled in full again
	sp, err := newImportSpool(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer sp.close()
	for i := range want {
		if err := sp.put(i+1, 10*(i+1), &want[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := sp.rewind(); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		n, line, got, err := sp.next()
		if err != nil || n != i+1 || line != 10*(i+1) {
			t.Fatalf("record %d: n %d line %d err %v", i+1, n, line, err)
		}
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("record %d reads back as\n%+v\nwant\n%+v", i+1, got, want[i])
		}
	}
	if _, _, _, err := sp.next(); err != io.EOF {
		t.Errorf("after the last record: %v, want io.EOF", err)
	}
}

// TestImportSpoolDamaged: a spool that does not read back as written is an
// error, never a wrong row.
func TestImportSpoolDamaged(t *testing.T) {
	sp, err := newImportSpool(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer sp.close()
	r, err := encodeRows(trace.NewEncoder(), nil, sampleTrace("a"))
	if err != nil {
		t.Fatal(err)
	}
	if err := sp.put(1, 1, &r); err != nil {
		t.Fatal(err)
	}
	if err := sp.w.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := sp.f.WriteAt([]byte{0xff, 0xff}, 3); err != nil {
		t.Fatal(err)
	}
	if err := sp.rewind(); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := sp.next(); !errors.Is(err, errSpoolDamaged) {
		t.Errorf("damaged record: %v, want errSpoolDamaged", err)
	}
}

// TestChunkPacer: a chunk stops taking work early enough for its commit
// (the longest recent one, forgotten slowly) to end within chunkTime, and
// never works less than an eighth of it.
func TestChunkPacer(t *testing.T) {
	p := newChunkPacer(importPace{chunkTime: 200 * time.Millisecond, yield: 100 * time.Millisecond})
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if got := p.workUntil(start).Sub(start); got != 150*time.Millisecond {
		t.Errorf("first chunk works %v, want 150ms (a quarter kept for the commit)", got)
	}
	now := time.Now()
	p.committed(now.Add(-180*time.Millisecond), now.Add(-120*time.Millisecond)) // a 120 ms commit
	if got := p.workUntil(start).Sub(start); got < 75*time.Millisecond || got > 81*time.Millisecond {
		t.Errorf("after a 120 ms commit a chunk works %v, want about 80ms", got)
	}
	if p.longest < 180*time.Millisecond || p.chunks != 1 {
		t.Errorf("longest %v chunks %d", p.longest, p.chunks)
	}
	p.committed(time.Now(), time.Now()) // a fast commit lowers the estimate slowly
	if got := p.workUntil(start).Sub(start); got > 100*time.Millisecond {
		t.Errorf("one fast commit later a chunk works %v, want the estimate to fall slowly", got)
	}
	p.committed(now.Add(-time.Second), now.Add(-time.Second)) // a commit longer than a chunk
	if got := p.workUntil(start).Sub(start); got != 25*time.Millisecond {
		t.Errorf("after a 1 s commit a chunk works %v, want the floor of 25ms", got)
	}
	if next := p.nextStart(); time.Until(next) < 90*time.Millisecond {
		t.Errorf("the next chunk may start in %v, want the yield", time.Until(next))
	}
}
