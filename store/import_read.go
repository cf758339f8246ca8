package store

import (
	"context"
	"errors"
	"io"
	"sync/atomic"

	"github.com/goldtrace/goldtrace/trace"
)

// An import's reading side: a goroutine parses the input's records,
// another validates and encodes them, looks their trace ids up among the
// stored traces and hands them, in the input's order, to the writer
// (import_write.go) through a short queue.

// encodedRecord is one record of the input, ready to write, or invalid and
// to be reported (err, with SkipInvalid only).
type encodedRecord struct {
	n, line int
	read    int64 // bytes of the input read when it was parsed
	size    int   // rows.size(), once queued
	rows    traceRows
	err     *trace.RecordError
}

// recordQueue hands encoded records from the reader to the writer, in
// order. Up to a chunk's worth may wait (queueRecords, and queueBytes of
// rows), so that the reader goes on while a chunk is written.
type recordQueue struct {
	ch      chan encodedRecord
	bytes   atomic.Int64  // the size of the rows waiting
	drained chan struct{} // the writer took some
}

func newRecordQueue() *recordQueue {
	return &recordQueue{ch: make(chan encodedRecord, queueRecords), drained: make(chan struct{}, 1)}
}

// send queues rec, waiting while queueBytes of rows wait already.
func (q *recordQueue) send(ctx context.Context, rec encodedRecord) error {
	for q.bytes.Load() >= queueBytes {
		select {
		case <-q.drained:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	rec.size = rec.rows.size()
	q.bytes.Add(int64(rec.size))
	select {
	case q.ch <- rec:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// taken is the writer's receipt of rec.
func (q *recordQueue) taken(rec encodedRecord) {
	q.bytes.Add(-int64(rec.size))
	select {
	case q.drained <- struct{}{}:
	default:
	}
}

// inputReader is an import's reading side, running.
type inputReader struct {
	queue *recordQueue
	// ended is closed when reading ended; err, total and replacedUTF8 are
	// set then.
	ended chan struct{}
	// err is what ended reading early; nil: the input was read to its end
	// and closed.
	err          error
	total        int // records read, valid or not
	replacedUTF8 int // the reader's count of traces whose invalid UTF-8 was replaced
	cancel       context.CancelFunc
}

const (
	// queueRecords and queueBytes bound the records waiting for the
	// writer, beside the chunk's worth it gathers before it writes (see
	// chunkPacer.want): the reader goes on during about a whole chunk
	// (about 3000 of the benchmark's records), and the import stays under
	// 200 MB. 1 GB (180k traces) on the idle 2-core machine, shared tools:
	// 1024 records (4 MB): 19.3 s, 155 MB RSS (the reader waited on the
	// writer about a third of the time); 2048 (8 MB): 16.6 s, 163 MB;
	// 3072 (10 MB): 15.4 s, 171 MB; 4096 (12 MB): 15.0 s, 177 MB.
	queueRecords = 3072
	queueBytes   = 10 << 20
	// parseAhead is how many parsed records may wait for the encoders, and
	// encoded ones for the queue (few: a decoded trace can be large).
	parseAhead = 32
)

// startReading starts reading in. When reading fails it calls abort with
// the error (to stop the writer); stop ends it early.
func (s *Store) startReading(ctx context.Context, in Input, opt ImportOptions, abort context.CancelCauseFunc) *inputReader {
	ctx, cancel := context.WithCancel(ctx)
	q := newRecordQueue()
	rd := &inputReader{queue: q, ended: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(q.ch)
		rd.total, rd.replacedUTF8, rd.err = s.readInput(ctx, in, opt, q)
		if rd.err != nil && ctx.Err() == nil {
			abort(rd.err)
		}
		close(rd.ended)
	}()
	return rd
}

// stop ends reading (if it has not ended) and waits until it has: the
// input is closed when it returns.
func (rd *inputReader) stop() {
	rd.cancel()
	for range rd.queue.ch {
	}
	<-rd.ended
}

// totalIfRead is the input's record count once it has been read to its
// end, else 0.
func (rd *inputReader) totalIfRead() int {
	select {
	case <-rd.ended:
		if rd.err == nil {
			return rd.total
		}
	default:
	}
	return 0
}

// readInput parses every record of in (on a goroutine of its own),
// validates and encodes each, and sends the records on out. An invalid
// record ends it (its error returned) unless opt.SkipInvalid; then it is
// sent to be reported in its turn. Whether a trace id is stored already
// (with other content: an invalid record) the writer finds out, in its
// transaction, for the next 64 records at once (traceWriter.lookAhead).
func (s *Store) readInput(ctx context.Context, in Input, opt ImportOptions, out *recordQueue) (records, replacedUTF8 int, err error) {
	parseCtx, cancel := context.WithCancel(ctx)
	// The body packer may store the import's dictionary (one short
	// transaction of its own, waiting for the writer's chunk to end).
	bodies := s.newBodyPacker(ctx)
	lanes := startEncoding(parseCtx, bodies)
	go parseRecords(parseCtx, in, lanes)
	closed := false
	defer func() {
		// The parser stops at its next record; it is not waited for: it
		// may be waiting for input that does not come (an idle stdin).
		cancel()
		if !closed {
			in.Closer.Close()
		}
	}()
	shared := newSharedRows()
	for {
		e, more := lanes.receive(ctx)
		if err := ctx.Err(); err != nil {
			return records, 0, err
		}
		if !more {
			break
		}
		rec := e.rec
		var rerr *trace.RecordError
		if rec.err != nil && !errors.As(rec.err, &rerr) {
			return records, 0, rec.err
		}
		records = rec.n
		p := encodedRecord{n: rec.n, line: rec.line, read: rec.read, err: rerr}
		if rerr == nil {
			p.rows = e.rows
			if e.err != nil {
				p.err = &trace.RecordError{Line: rec.line, Err: e.err}
			}
			p.rows.packWith(bodies.pack) // in order: the first bodies make the dictionary
			shared.share(&p.rows)
		}
		if p.err != nil {
			if !opt.SkipInvalid {
				return records, 0, p.err
			}
			p.rows = traceRows{}
		}
		if err := out.send(ctx, p); err != nil {
			return records, 0, err
		}
	}
	if err := ctx.Err(); err != nil {
		return records, 0, err
	}
	if rr, ok := in.Records.(interface{ ReplacedUTF8() int }); ok {
		replacedUTF8 = rr.ReplacedUTF8()
	}
	closed = true
	if err := in.Closer.Close(); err != nil {
		return records, 0, err
	}
	if records == 0 {
		return 0, 0, ErrNoRecords
	}
	return records, replacedUTF8, nil
}

// parsedRecord is one record as the parsing goroutine read it.
type parsedRecord struct {
	n, line int
	read    int64
	t       trace.Trace
	err     error // a *trace.RecordError, or what ended the input
}

// parseRecords reads in to its end, or to an error that ends the input
// (sent last), sends the records to the encoding lanes and closes them.
func parseRecords(ctx context.Context, in Input, out *encodeLanes) {
	defer out.close()
	for n := 1; ctx.Err() == nil; n++ {
		t, err := in.Records.Next()
		if err == io.EOF {
			return
		}
		rec := parsedRecord{n: n, line: lineOf(in.Records), t: t, err: err}
		if in.Read != nil {
			rec.read = in.Read()
		}
		if !out.send(ctx, rec) {
			return
		}
		var rerr *trace.RecordError
		if err != nil && !errors.As(err, &rerr) {
			return
		}
	}
}

func lineOf(r trace.Reader) int {
	if lr, ok := r.(interface{ Line() int }); ok {
		return lr.Line()
	}
	return 0
}

// sharedRows lets the queued records of an import share their tool rows
// and tool lists: a log's traces usually offer the same few tools, and
// each record's own copy of their schemas was most of what the queue held.
type sharedRows struct {
	tools    map[string]toolRow
	toolsets map[string]string
}

// sharedRowsLimit bounds how many distinct tools and tool lists are
// remembered.
const sharedRowsLimit = 4096

func newSharedRows() *sharedRows {
	return &sharedRows{tools: map[string]toolRow{}, toolsets: map[string]string{}}
}

// share makes r use the tool rows and tool list already seen, where equal.
func (sr *sharedRows) share(r *traceRows) {
	for i, t := range r.tools {
		if known, ok := sr.tools[t.hash]; ok {
			r.tools[i] = known
		} else if len(sr.tools) < sharedRowsLimit {
			sr.tools[t.hash] = t
		}
	}
	if known, ok := sr.toolsets[r.toolset]; ok {
		r.toolset = known
	} else if len(sr.toolsets) < sharedRowsLimit {
		sr.toolsets[r.toolset] = r.toolset
	}
}
