package store

import (
	"context"

	"github.com/goldtrace/goldtrace/trace"
)

// An import's records are encoded (canonical JSON, hashes, items, the
// compressed body) by encodeWorkers goroutines at once, between the parser
// and the goroutine that queues them for the writer, which takes them
// back in the input's order. The encoding was as much work as the writing
// (and all of it on one goroutine): on two cores the writer waited for it.

// encodeWorkers is how many goroutines encode an import's records.
const encodeWorkers = 2

// encodedTrace is one parsed record and, when it parsed, its rows.
type encodedTrace struct {
	rec  parsedRecord
	rows traceRows
	err  error // encoding's
}

// encodeLanes hands the parser's records to the workers in turn (the n-th
// to lane n mod len), and takes their results back in the same turn.
type encodeLanes struct {
	in   []chan parsedRecord
	out  []chan encodedTrace
	next int
}

// startEncoding starts the workers; the parser closes lanes.in when it
// ends. Before packer has chosen its dictionary, the workers leave the
// bodies to the caller of next (see bodyPacker.packReady).
func startEncoding(ctx context.Context, packer *bodyPacker) *encodeLanes {
	l := &encodeLanes{}
	for range encodeWorkers {
		// As many parsed records wait as before there were lanes; an
		// encoded one is taken at once (the taker only queues it).
		in := make(chan parsedRecord, parseAhead/encodeWorkers)
		out := make(chan encodedTrace, 2)
		l.in, l.out = append(l.in, in), append(l.out, out)
		go encodeLane(ctx, packer, in, out)
	}
	return l
}

func encodeLane(ctx context.Context, packer *bodyPacker, in <-chan parsedRecord, out chan<- encodedTrace) {
	defer close(out)
	re := newRowEncoder()
	for {
		var rec parsedRecord
		var more bool
		select {
		case rec, more = <-in:
		case <-ctx.Done():
			return
		}
		if !more {
			return
		}
		e := encodedTrace{rec: rec}
		if rec.err == nil {
			e.rows, e.err = re.encode(rec.t)
			if e.err == nil {
				e.rows.packWith(packer.packReady)
			}
			e.rec.t = trace.Trace{} // encoded: not held in the queue
		}
		select {
		case out <- e:
		case <-ctx.Done():
			return
		}
	}
}

// send hands rec to its lane.
func (l *encodeLanes) send(ctx context.Context, rec parsedRecord) bool {
	select {
	case l.in[(rec.n-1)%len(l.in)] <- rec:
		return true
	case <-ctx.Done():
		return false
	}
}

// close ends the lanes' input (the parser's end).
func (l *encodeLanes) close() {
	for _, in := range l.in {
		close(in)
	}
}

// receive returns the next record in the input's order; false when the
// input has ended (or ctx is done).
func (l *encodeLanes) receive(ctx context.Context) (encodedTrace, bool) {
	select {
	case e, ok := <-l.out[l.next]:
		l.next = (l.next + 1) % len(l.out)
		return e, ok
	case <-ctx.Done():
		return encodedTrace{}, false
	}
}
