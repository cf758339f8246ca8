package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/goldtrace/goldtrace/trace"
)

// readAhead is how many spooled traces the writing pass's reader may hold
// ready while a chunk is written.
const readAhead = 64

// encodedRecord is one trace of the writing pass, ready to write.
type encodedRecord struct {
	n, line int
	rows    traceRows
}

// writeInput is the writing pass: a goroutine reads the spool while this
// one writes its records in short transactions. It returns the ids of the
// traces it inserted (committed), also on failure, so they can be deleted
// again, and how many records its committed chunks covered.
func (s *Store) writeInput(ctx context.Context, spool *importSpool, opt ImportOptions, checked checkedInput) (ImportResult, []string, int, error) {
	readCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := make(chan encodedRecord, readAhead)
	readErr := make(chan error, 1)
	go func() {
		readErr <- readSpool(readCtx, spool, ch)
		close(ch)
	}()
	res := ImportResult{Source: opt.Source, Skipped: checked.skipped, ReplacedUTF8: checked.replacedUTF8}
	var inserted []string
	done := 0
	fail := func(err error) (ImportResult, []string, int, error) {
		cancel()
		for range ch {
		}
		if rerr := <-readErr; rerr != nil && !errors.Is(rerr, context.Canceled) {
			err = rerr // the reader's failure came first: the channel closed early
		}
		if ctx.Err() != nil {
			err = fmt.Errorf("import interrupted: %w", ctx.Err())
		}
		return res, inserted, done, err
	}
	cache := newWriteCache()
	pacer := newChunkPacer(opt.pace)
	batch := make([]encodedRecord, 0, opt.pace.chunkTraces)
	for closed := false; !closed; {
		var err error
		batch, closed, err = collect(ctx, ch, batch[:0], opt.pace.chunkTraces, pacer.nextStart())
		if err != nil {
			return fail(err)
		}
		for len(batch) > 0 {
			if err := s.pauseForWaiters(ctx, pacer.lastCommit, pacer.pace.yield); err != nil {
				return fail(err)
			}
			written, delta, ids, err := s.writeChunk(ctx, batch, opt, cache, pacer)
			if err != nil {
				return fail(err)
			}
			done = batch[written-1].n
			if s.logSize() >= checkpointLog {
				s.checkpoint(ctx) // in the pause between chunks: the lock is free
			}
			inserted = append(inserted, ids...)
			res.Imported += delta.Imported
			res.Duplicates += delta.Duplicates
			res.Skipped += delta.Skipped
			res.Items += delta.Items
			if opt.OnProgress != nil {
				opt.OnProgress(ImportProgress{Records: done, Total: checked.records, ImportResult: res})
			}
			batch = batch[written:]
		}
	}
	res.chunks, res.longestChunk = pacer.chunks, pacer.longest
	if err := <-readErr; err != nil {
		return res, inserted, done, err
	}
	return res, inserted, done, nil
}

// readSpool sends the spooled records on out.
func readSpool(ctx context.Context, spool *importSpool, out chan<- encodedRecord) error {
	for {
		n, line, rows, err := spool.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		select {
		case out <- encodedRecord{n: n, line: line, rows: rows}:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// chunkPacer sizes an import's write transactions by time: each holds the
// write lock for pace.chunkTime at most, its commit included (predicted
// from the commits before it), and the next begins pace.yield after it.
type chunkPacer struct {
	pace       importPace
	lastCommit time.Time     // when the last chunk's commit returned
	commit     time.Duration // predicted time of the next commit
	longest    time.Duration // the longest a chunk has held the lock
	chunks     int
}

func newChunkPacer(p importPace) *chunkPacer {
	return &chunkPacer{pace: p, commit: p.chunkTime / 4}
}

// nextStart is when the next chunk may take the lock.
func (p *chunkPacer) nextStart() time.Time { return p.lastCommit.Add(p.pace.yield) }

// workUntil is when a chunk that took the lock at start stops adding rows.
func (p *chunkPacer) workUntil(start time.Time) time.Time {
	return start.Add(max(p.pace.chunkTime-p.commit, p.pace.chunkTime/8))
}

// committed records a chunk that took the lock at start and whose commit
// began at commitStart and has just returned.
func (p *chunkPacer) committed(start, commitStart time.Time) {
	p.lastCommit = time.Now()
	p.chunks++
	p.longest = max(p.longest, p.lastCommit.Sub(start))
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

// collect appends records from ch to batch: it waits for the first one,
// then takes more until batch holds max (or batchBytes), or deadline has
// passed and no more are ready. closed reports that ch is closed (the reader is done).
func collect(ctx context.Context, ch <-chan encodedRecord, batch []encodedRecord, max int, deadline time.Time) ([]encodedRecord, bool, error) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	size := 0
	for _, rec := range batch {
		size += rec.rows.size()
	}
	for len(batch) < max && size < batchBytes {
		var wait <-chan time.Time
		if len(batch) > 0 {
			d := time.Until(deadline)
			if d <= 0 {
				select {
				case rec, ok := <-ch:
					if !ok {
						return batch, true, nil
					}
					batch = append(batch, rec)
					size += rec.rows.size()
					continue
				default:
					return batch, false, nil
				}
			}
			if timer == nil {
				timer = time.NewTimer(d)
			}
			wait = timer.C
		}
		select {
		case rec, ok := <-ch:
			if !ok {
				return batch, true, nil
			}
			batch = append(batch, rec)
			size += rec.rows.size()
		case <-wait:
			deadline = time.Time{}
		case <-ctx.Done():
			return batch, false, ctx.Err()
		}
	}
	return batch, false, nil
}

func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// writeChunk writes a prefix of batch in one transaction that holds the
// write lock as long as pacer allows, and returns how many records it took,
// what it did, and the ids of the traces it inserted.
func (s *Store) writeChunk(ctx context.Context, batch []encodedRecord, opt ImportOptions, cache *writeCache, pacer *chunkPacer) (int, ImportResult, []string, error) {
	var written int
	var delta ImportResult
	var ids []string
	var reports []*trace.RecordError
	var start, commitStart time.Time
	// A chunk commits relaxed on a connection held for it alone: label
	// submits (grouped by WithTx) never share its transaction, so they keep
	// synchronous=FULL while an import runs beside them.
	err := s.withRelaxedTx(bulkWrite(ctx), func(tx *Tx) error {
		start = time.Now()
		defer func() { commitStart = time.Now() }()
		until := pacer.workUntil(start)
		w, err := s.prepareWriter(ctx, tx, cache)
		if err != nil {
			return err
		}
		defer w.close()
		for i, rec := range batch {
			if written > 0 && time.Now().After(until) {
				break
			}
			if i%lookAheadRows == 0 {
				ids, hashes := lookAheadKeys(batch[i:min(i+lookAheadRows, len(batch))])
				if err := w.lookAhead(ctx, ids, hashes); err != nil {
					return err
				}
			}
			written++
			id := rec.rows.id
			outcome, items, err := w.insert(ctx, rec.rows, opt.Source)
			if errors.Is(err, errStoredDifferently) {
				// Stored since the reading pass looked, or twice in this input.
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
			}
		}
		if err := w.flush(ctx); err != nil {
			return fmt.Errorf("store traces: %w", err)
		}
		// The chunk and the import's progress commit together.
		return w.exec(ctx, sqlImportProgress, batch[written-1].n, s.now(), opt.Source)
	})
	if err != nil {
		return 0, ImportResult{}, nil, err
	}
	pacer.committed(start, commitStart)
	if opt.OnInvalid != nil {
		for _, rerr := range reports {
			opt.OnInvalid(rerr)
		}
	}
	return written, delta, ids, nil
}

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
// the import recorded as unfinished.
func (s *Store) undoImport(ctx context.Context, ids []string, source string, pace importPace) *UndoError {
	var kept []string
	var lastCommit time.Time
	for start := 0; start < len(ids); {
		if err := s.pauseForWaiters(ctx, lastCommit, pace.yield); err != nil {
			return &UndoError{Kept: append(kept, ids[start:]...), UndoErr: err}
		}
		var done int
		var chunkKept []string
		err := s.WithTx(bulkWrite(ctx), func(tx *Tx) error {
			done, chunkKept = 0, nil
			began := time.Now()
			st, err := tx.PrepareContext(ctx, `DELETE FROM traces WHERE id = ?`)
			if err != nil {
				return err
			}
			defer st.Close()
			for _, id := range ids[start:] {
				if done > 0 && (done >= pace.chunkTraces || time.Since(began) >= pace.chunkTime) {
					break
				}
				done++
				if _, err := st.ExecContext(ctx, id); err != nil {
					if strings.Contains(err.Error(), "FOREIGN KEY constraint failed") {
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

// lookAheadKeys are the ids and content hashes of recs, for lookAhead.
func lookAheadKeys(recs []encodedRecord) (ids, hashes []string) {
	ids, hashes = make([]string, len(recs)), make([]string, len(recs))
	for i, r := range recs {
		ids[i], hashes[i] = r.rows.id, r.rows.hash
	}
	return ids, hashes
}
