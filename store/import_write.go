package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/goldtrace/goldtrace/internal/bulk"
	"github.com/goldtrace/goldtrace/trace"
)

// importWrite is what an import's writer did: the result, the ids of the
// traces it inserted (committed), also on failure, so they can be deleted
// again, and how far its committed chunks reach.
type importWrite struct {
	res      ImportResult
	inserted []string
	at       ImportPoint
	recorded bool // a chunk committed, and with it the import's record
}

// stopped is where the import stands after its last committed chunk.
func (w importWrite) stopped() ImportPoint { return w.at }

// writeInput writes the records rd reads, in short transactions, while rd
// reads on. It ends when rd's records end; an error of rd's is returned
// (ctx is cancelled with it as soon as rd fails).
func (s *Store) writeInput(ctx context.Context, rd *inputReader, opt ImportOptions, size int64) (w importWrite, err error) {
	w = importWrite{res: ImportResult{Source: opt.Source}, at: ImportPoint{Size: size}}
	feed := &recordFeed{q: rd.queue, ch: rd.queue.ch, batch: make([]encodedRecord, 0, opt.pace.chunkTraces)}
	cache := newWriteCache()
	cache.prepareOnce(ctx, s.db)
	defer cache.close()
	pacer := newChunkPacer(opt.pace)
	defer func() { w.res.chunks, w.res.longestChunk = pacer.chunks, pacer.longest }()
	for {
		if err := feed.collect(ctx, pacer.want(), opt.pace.chunkTraces, time.Now().Add(opt.pace.chunkTime)); err != nil {
			return w, err
		}
		if len(feed.batch) == 0 { // the reader is done
			<-rd.ended
			return w, rd.err
		}
		if err := s.db.PauseForWaiters(ctx, pacer.lastCommit, opt.pace.yield); err != nil {
			return w, err
		}
		at := w.at
		at.Total = rd.totalIfRead()
		written, delta, ids, err := s.writeChunk(ctx, feed, opt, at, cache, pacer)
		if err != nil {
			return w, err
		}
		last := feed.batch[written-1]
		feed.batch = feed.batch[:copy(feed.batch, feed.batch[written:])]
		w.recorded = true
		w.at = ImportPoint{Written: last.n, Total: at.Total, Read: last.read, Size: size}
		if s.logSize() >= checkpointLog {
			s.checkpoint(ctx) // in the pause between chunks: the lock is free
		}
		w.inserted = append(w.inserted, ids...)
		w.res.Imported += delta.Imported
		w.res.Duplicates += delta.Duplicates
		w.res.Skipped += delta.Skipped
		w.res.Items += delta.Items
		if opt.OnProgress != nil {
			opt.OnProgress(ImportProgress{Records: w.at.Written, Total: w.at.Total, Read: w.at.Read, Size: size, ImportResult: w.res})
		}
	}
}

// recordFeed is the writer's end of the reader's queue: the records taken
// from it and not written yet.
type recordFeed struct {
	q      *recordQueue
	ch     <-chan encodedRecord
	batch  []encodedRecord
	closed bool // ch is closed: the reader is done
	// waited is how long await has waited for the reader, in all.
	waited time.Duration
}

// took adds rec, received from ch, to batch; !ok: ch is closed.
func (f *recordFeed) took(rec encodedRecord, ok bool) bool {
	if !ok {
		f.closed = true
		return false
	}
	f.q.taken(rec)
	f.batch = append(f.batch, rec)
	return true
}

// more takes one more record into batch if one is ready, without waiting.
func (f *recordFeed) more() bool {
	if f.closed {
		return false
	}
	select {
	case rec, ok := <-f.ch:
		return f.took(rec, ok)
	default:
		return false
	}
}

// chunkPacer sizes an import's write transactions by time: each holds the
// write lock for pace.chunkTime at most, its commit included (predicted
// from the commits before it); between chunks the writer pauses while
// other writers wait (pauseForWaiters).
type chunkPacer struct {
	pace       importPace
	lastCommit time.Time     // when the last chunk's commit returned
	commit     time.Duration // predicted time of the next commit
	longest    time.Duration // the longest a chunk has held the lock
	chunks     int
	// rate is how many records a chunk writes per second of its work (its
	// waits for the reader left out), 0 before the first chunk.
	rate float64
}

func newChunkPacer(p importPace) *chunkPacer {
	return &chunkPacer{pace: p, commit: p.chunkTime / 4}
}

// workUntil is when a chunk that took the lock at start stops adding rows.
func (p *chunkPacer) workUntil(start time.Time) time.Time {
	return start.Add(p.work())
}

func (p *chunkPacer) work() time.Duration {
	return max(p.pace.chunkTime-p.commit, p.pace.chunkTime/8)
}

// want is how many records the next chunk can write in its time (1 before
// the first chunk has shown the rate): the writer gathers that many before
// it takes the lock, so that a chunk does not spend its time waiting for
// the reader. Every commit writes the pages its chunk changed, so fewer,
// fuller chunks write less.
func (p *chunkPacer) want() int {
	n := int(p.rate * p.work().Seconds())
	return min(max(n, 1), p.pace.chunkTraces)
}

// committed records a chunk that took the lock at start, wrote written
// records (waiting for the reader for waited of it), and whose commit
// began at commitStart and has just returned.
func (p *chunkPacer) committed(start, commitStart time.Time, written int, waited time.Duration) {
	p.lastCommit = time.Now()
	p.chunks++
	p.longest = max(p.longest, p.lastCommit.Sub(start))
	if work := commitStart.Sub(start) - waited; work > 0 {
		r := float64(written) / work.Seconds()
		if p.rate == 0 {
			p.rate = r
		} else {
			p.rate = (3*p.rate + r) / 4
		}
	}
	c := p.lastCommit.Sub(commitStart)
	// Up fast (a commit that grew is a lock held too long), down slowly.
	if c > p.commit {
		p.commit = c
	} else {
		p.commit = (7*p.commit + c) / 8
	}
}

// batchBytes bounds the rows a batch of the writing pass holds (about:
// see traceRows.size), whatever their number.
const batchBytes = 16 << 20

// collect takes records into batch: it waits for one (unless batch holds
// some already, or the reader is done), then for more until batch holds
// want, or deadline has passed; then it takes those ready, up to max (or
// batchBytes).
func (f *recordFeed) collect(ctx context.Context, want, max int, deadline time.Time) error {
	if len(f.batch) == 0 && !f.closed {
		select {
		case rec, ok := <-f.ch:
			if !f.took(rec, ok) {
				return nil
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	size := 0
	for _, rec := range f.batch {
		size += rec.size
	}
	for len(f.batch) < want && size < batchBytes && f.await(ctx, deadline) {
		size += f.batch[len(f.batch)-1].size
	}
	for len(f.batch) < max && size < batchBytes && f.more() {
		size += f.batch[len(f.batch)-1].size
	}
	return ctx.Err()
}

// await takes one more record into batch, waiting for it until deadline at
// most; false when none came (or the reader is done).
func (f *recordFeed) await(ctx context.Context, deadline time.Time) bool {
	if f.more() {
		return true
	}
	d := time.Until(deadline)
	if f.closed || d <= 0 {
		return false
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	defer func(began time.Time) { f.waited += time.Since(began) }(time.Now())
	select {
	case rec, ok := <-f.ch:
		return f.took(rec, ok)
	case <-timer.C:
	case <-ctx.Done():
	}
	return false
}

// writeChunk writes the first records of feed's batch in one transaction
// that holds the write lock as long as pacer allows (taking, and waiting
// for, more from the reader meanwhile, up to pace.chunkTraces), records
// the import's progress (at, with the written count and the read bytes of
// the chunk's last record) in it, and returns how many records it took,
// what it did, and the ids of the traces it inserted.
//
// It is long because the chunk's pacing (taking more records while the
// lock may be held) and its writes share one transaction and its deadline.
func (s *Store) writeChunk(ctx context.Context, feed *recordFeed, opt ImportOptions, at ImportPoint, cache *writeCache, pacer *chunkPacer) (int, ImportResult, []string, error) {
	var written int
	var delta ImportResult
	var ids []string
	var reports []*trace.RecordError
	var start, commitStart time.Time
	var waited0 time.Duration
	// A chunk commits relaxed on a connection held for it alone: label
	// submits (grouped by WithTx) never share its transaction, so they keep
	// synchronous=FULL while an import runs beside them.
	err := s.db.WithRelaxedTx(bulk.Write(ctx), func(tx *Tx) error {
		defer s.writes.ended()
		written, delta, ids, reports = 0, ImportResult{}, nil, nil
		start, waited0 = time.Now(), feed.waited
		defer func() { commitStart = time.Now() }()
		until := pacer.workUntil(start)
		w, err := s.prepareWriter(ctx, tx, cache)
		if err != nil {
			return err
		}
		defer w.close()
		// While another import is unfinished, the traces of its that this
		// one finds stored become this one's (their source), so that its
		// undo, which deletes only its own, does not delete what this one
		// said is stored.
		var adopt bool
		if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM imports WHERE source <> ?)`, opt.Source).Scan(&adopt); err != nil {
			return err
		}
		// Records the reader makes meanwhile join the chunk, up to its
		// time: a reader slower than the writer does not make it commit
		// many small chunks. Stored traces are looked up lookAheadRows at
		// a time, of those at hand.
		looked := 0
		for written < opt.pace.chunkTraces && (written < len(feed.batch) || feed.await(ctx, until)) {
			if written > 0 && time.Now().After(until) {
				break
			}
			if written >= looked {
				looked = min(written+s.lookAheadRows(), len(feed.batch))
				ids, hashes := lookAheadKeys(feed.batch[written:looked])
				if err := w.lookAhead(ctx, ids, hashes); err != nil {
					return err
				}
				if err := w.prefetchMetasets(ctx, feed.batch[written:looked]); err != nil {
					return err
				}
			}
			rec := feed.batch[written]
			written++
			if rec.err != nil { // invalid, to report (SkipInvalid)
				delta.Skipped++
				reports = append(reports, rec.err)
				continue
			}
			id := rec.rows.id
			outcome, items, err := w.insert(ctx, rec.rows, opt.Source)
			if errors.Is(err, errStoredDifferently) {
				// Stored since the reader looked, or twice in this input.
				rerr := &trace.RecordError{Line: rec.line, Err: fmt.Errorf("trace id %q %w", id, errStoredDifferently)}
				if !opt.SkipInvalid {
					return rerr
				}
				delta.Skipped++
				reports = append(reports, rerr)
				continue
			}
			if err != nil {
				return fmt.Errorf("store trace %q: %w", id, err)
			}
			if outcome == Inserted {
				delta.Imported++
				delta.Items += items
				ids = append(ids, id)
			} else {
				delta.Duplicates++
				if adopt {
					cut := min(16, len(rec.rows.hash))
					if _, err := tx.ExecContext(ctx, sqlTraceAdopt, opt.Source, rec.rows.hash[:cut], rec.rows.hash[cut:]); err != nil {
						return fmt.Errorf("store trace %q: %w", id, err)
					}
				}
			}
		}
		if err := w.flush(ctx); err != nil {
			return fmt.Errorf("store traces: %w", err)
		}
		// The chunk and the import's progress commit together.
		last := feed.batch[written-1]
		return w.exec(ctx, sqlImportProgress, opt.Source, at.Total, last.n, s.now(), last.read, at.Size)
	})
	if err != nil {
		return 0, ImportResult{}, nil, err
	}
	pacer.committed(start, commitStart, written, feed.waited-waited0)
	if opt.OnInvalid != nil {
		for _, rerr := range reports {
			opt.OnInvalid(rerr)
		}
	}
	return written, delta, ids, nil
}

// sqlTraceAdopt gives the traces of a content (hash in two halves, as in
// sqlTraceStored) that an unfinished import (not ?1) stored to import ?1.
const sqlTraceAdopt = `UPDATE traces SET source = ?1
	WHERE substr(content_hash, 1, 16) = ?2 AND substr(content_hash, 17) = ?3
	AND source IN (SELECT source FROM imports WHERE source <> ?1)`

// UndoError is an import that failed (Err) and whose traces could not all
// be deleted again: Kept are still stored, because another process sampled
// them into a batch meanwhile, or because the undo itself failed (UndoErr).
type UndoError struct {
	Err     error
	Kept    []string
	UndoErr error
}

func (e *UndoError) Error() string { return fmt.Sprintf("%v; %s", e.Err, e.Note()) }

// Note says what stays stored and why.
func (e *UndoError) Note() string {
	if e.UndoErr != nil {
		// The import stays recorded as unfinished (see ImportTraces).
		return fmt.Sprintf("%d traces it wrote stay stored (undoing the import failed: %v) — free space if the disk is full, then run the same import again to finish it",
			len(e.Kept), e.UndoErr)
	}
	return fmt.Sprintf("%d traces it wrote stay stored (another process sampled them into a batch meanwhile), e.g. %q", len(e.Kept), e.Kept[0])
}

func (e *UndoError) Unwrap() error { return e.Err }

// undoImport deletes the traces an import inserted, with their items, tool
// lists and metadata (the foreign keys cascade), in short transactions.
// Tool definitions stay: they are shared, content-addressed rows. A trace
// whose items another process has sampled meanwhile cannot be deleted
// (batch_items refers to them); it is kept and reported, not forced.
//
// The last transaction also removes the import's record (source), so that
// a disk too full for one more transaction after the undo does not leave
// the import recorded as unfinished. Only traces whose source is still
// owner are deleted ("": any): another import that found one stored took
// it over (sqlTraceAdopt).
func (s *Store) undoImport(ctx context.Context, ids []string, source, owner string, pace importPace) *UndoError {
	var kept []string
	var lastCommit time.Time
	for start := 0; start < len(ids); {
		if err := s.db.PauseForWaiters(ctx, lastCommit, pace.yield); err != nil {
			return &UndoError{Kept: append(kept, ids[start:]...), UndoErr: err}
		}
		var done int
		var chunkKept []string
		err := s.WithTx(bulk.Write(ctx), func(tx *Tx) error {
			done, chunkKept = 0, nil
			began := time.Now()
			st, err := tx.PrepareContext(ctx, `DELETE FROM traces WHERE id = ?1 AND (?2 = '' OR source = ?2)`)
			if err != nil {
				return err
			}
			defer st.Close()
			for _, id := range ids[start:] {
				if done > 0 && (done >= pace.chunkTraces || time.Since(began) >= pace.chunkTime) {
					break
				}
				done++
				if _, err := st.ExecContext(ctx, id, owner); err != nil {
					if foreignKeyFailed(err) {
						chunkKept = append(chunkKept, id) // the statement alone was undone
						continue
					}
					return err
				}
			}
			if start+done < len(ids) || source == "" {
				return nil // "": traces written by sample --from, not an import
			}
			_, err = tx.ExecContext(ctx, `DELETE FROM imports WHERE source = ?`, source)
			return err
		})
		if err != nil {
			return &UndoError{Kept: append(kept, ids[start:]...), UndoErr: err}
		}
		lastCommit = time.Now()
		kept = append(kept, chunkKept...)
		start += done
	}
	if len(kept) == 0 {
		return nil
	}
	return &UndoError{Kept: kept}
}

// lookAheadKeys are the ids and content hashes of recs (the valid ones),
// for lookAhead.
func lookAheadKeys(recs []encodedRecord) (ids, hashes []string) {
	for _, r := range recs {
		if r.err == nil {
			ids, hashes = append(ids, r.rows.id), append(hashes, r.rows.hash)
		}
	}
	return ids, hashes
}
