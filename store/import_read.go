package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

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
	// conflictBatch is how many records the reader looks up at once
	// (conflictBatchBytes of rows at most).
	conflictBatch      = 256
	conflictBatchBytes = 16 << 20
	// parseAhead is how many parsed records may wait for the encoder (few:
	// a decoded trace can be large).
	parseAhead = 32
	// inputPause is how long the parser may keep the encoder waiting before
	// the records encoded so far are looked up and sent without a full
	// batch.
	inputPause = 10 * time.Millisecond
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
// validates, encodes and looks up each trace id among the stored traces
// (through the read pool: no lock), and sends the records on out. An
// invalid record ends it (its error returned) unless opt.SkipInvalid; then
// it is sent to be reported in its turn.
func (s *Store) readInput(ctx context.Context, in Input, opt ImportOptions, out *recordQueue) (records, replacedUTF8 int, err error) {
	parseCtx, cancel := context.WithCancel(ctx)
	parsed := make(chan parsedRecord, parseAhead)
	go parseRecords(parseCtx, in, parsed)
	closed := false
	defer func() {
		// The parser stops at its next record; it is not waited for: it
		// may be waiting for input that does not come (an idle stdin).
		cancel()
		if !closed {
			in.Closer.Close()
		}
	}()
	var pending []encodedRecord
	pendingBytes := 0
	flush := func() error {
		stored, err := s.storedHashes(ctx, pending)
		if err != nil {
			return err
		}
		for i := range pending {
			p := &pending[i]
			if h, isStored := stored[p.rows.id]; p.err == nil && isStored && p.rows.hash != h {
				p.err = &trace.RecordError{Line: p.line, Err: fmt.Errorf("trace id %q %w", p.rows.id, errStoredDifferently)}
			}
			if p.err != nil {
				if !opt.SkipInvalid {
					return p.err
				}
				p.rows = traceRows{}
			}
			if err := out.send(ctx, *p); err != nil {
				return err
			}
		}
		clear(pending)
		pending, pendingBytes = pending[:0], 0
		return nil
	}
	// The body packer may store the import's dictionary (one short
	// transaction of its own, waiting for the writer's chunk to end).
	enc, bodies := trace.NewEncoder(), s.newBodyPacker(ctx)
	shared := newSharedRows()
	// Records wait for a full batch's lookup only while more are coming:
	// when the input pauses (a slow stdin), those read go on to the writer.
	idle := time.NewTimer(time.Hour)
	defer idle.Stop()
	for {
		var rec parsedRecord
		var more bool
		var paused <-chan time.Time
		if len(pending) > 0 && len(parsed) == 0 {
			idle.Reset(inputPause)
			paused = idle.C
		}
		select {
		case rec, more = <-parsed:
		case <-paused:
			if err := flush(); err != nil {
				return records, 0, err
			}
			continue
		case <-ctx.Done():
			return records, 0, ctx.Err()
		}
		if !more {
			break
		}
		var rerr *trace.RecordError
		if rec.err != nil && !errors.As(rec.err, &rerr) {
			return records, 0, rec.err
		}
		records = rec.n
		p := encodedRecord{n: rec.n, line: rec.line, read: rec.read, err: rerr}
		if rerr == nil {
			if p.rows, err = encodeRows(enc, bodies, rec.t); err != nil {
				p.err = &trace.RecordError{Line: rec.line, Err: err}
			}
			shared.share(&p.rows)
		}
		pending = append(pending, p)
		pendingBytes += p.rows.size()
		// An invalid record ends the import: those before it are looked up
		// first, so that the first invalid one is reported.
		fatal := p.err != nil && !opt.SkipInvalid
		if fatal || len(pending) >= conflictBatch || pendingBytes >= conflictBatchBytes {
			if err := flush(); err != nil {
				return records, 0, err
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return records, 0, err
	}
	if err := flush(); err != nil {
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
// (sent last), and closes out.
func parseRecords(ctx context.Context, in Input, out chan<- parsedRecord) {
	defer close(out)
	for n := 1; ctx.Err() == nil; n++ {
		t, err := in.Records.Next()
		if err == io.EOF {
			return
		}
		rec := parsedRecord{n: n, line: lineOf(in.Records), t: t, err: err}
		if in.Read != nil {
			rec.read = in.Read()
		}
		select {
		case out <- rec:
		case <-ctx.Done():
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

// storedHashes returns the content hash of each pending trace id that is
// already stored.
func (s *Store) storedHashes(ctx context.Context, pending []encodedRecord) (map[string]string, error) {
	args := []any{}
	for _, p := range pending {
		if p.err == nil {
			args = append(args, p.rows.id)
		}
	}
	out := map[string]string{}
	if len(args) == 0 {
		return out, nil
	}
	rows, err := s.r.QueryContext(ctx, `SELECT id, content_hash FROM traces WHERE id IN (?`+strings.Repeat(",?", len(args)-1)+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, hash string
		if err := rows.Scan(&id, &hash); err != nil {
			return nil, err
		}
		out[id] = hash
	}
	return out, rows.Err()
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
