package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/goldtrace/goldtrace/internal/input"

	"github.com/goldtrace/goldtrace/trace"
)

// ErrNoRecords is the import of an input that holds no records at all.
var ErrNoRecords = errors.New("no records")

// Input is one opened input of an import.
type Input struct {
	Records trace.Reader
	// Closer is closed once the input is read (or abandoned); an error
	// from it fails the import.
	Closer io.Closer
	// Size is the input's size in bytes when it is known (a regular file,
	// compressed or not), else 0.
	Size int64
	// Read, when set, is how many of the input's Size bytes Records has
	// consumed so far. It is called from the goroutine that calls
	// Records.Next, after each record.
	Read func() int64
}

// OpenInput reads the records of format from r, counting the bytes read
// (Input.Read): size is r's size when known (else 0), closer is closed with
// the input.
func OpenInput(r io.Reader, format string, size int64, closer io.Closer) (Input, error) {
	var read int64
	records, err := trace.NewReader(input.Counted(r, func(n int64) { read += n }), format)
	if err != nil {
		return Input{}, err
	}
	return Input{Records: records, Closer: closer, Size: size, Read: func() int64 { return read }}, nil
}

// Opener opens one input. ImportTraces calls it once and closes what it
// returns.
type Opener func() (Input, error)

// ImportOptions say how ImportTraces treats one input.
type ImportOptions struct {
	// Source names the input (its path); it is stored with each trace.
	Source string
	// SkipInvalid imports the valid records and reports the invalid ones to
	// OnInvalid; without it the first invalid record aborts the input.
	SkipInvalid bool
	// OnInvalid receives each skipped record (SkipInvalid only), in the
	// input's order, once the chunk holding it is committed.
	OnInvalid func(*trace.RecordError)
	// OnProgress, when set, is called after each chunk is written.
	OnProgress func(ImportProgress)

	pace importPace // zero: defaultPace; tests shorten it
}

// ImportProgress is where an import is: the records it has written, and
// how far into the input they reach.
type ImportProgress struct {
	// Records is how many of the input's records the committed chunks
	// covered (written, already stored, or invalid and skipped).
	Records int
	// Total is how many records the input holds: known once it has been
	// read to its end (0 before).
	Total int
	// Read is how many of the input's bytes had been read at the last
	// record written; Size is the input's size (0 when unknown: stdin).
	Read, Size int64
	ImportResult
}

// ImportResult counts what one import did.
type ImportResult struct {
	Source     string `json:"file"`
	Imported   int    `json:"imported"`
	Duplicates int    `json:"duplicates"`
	Skipped    int    `json:"skipped"`
	Items      int    `json:"items"`
	// ReplacedUTF8 counts the traces whose records held bytes that are not
	// UTF-8, stored with each replaced by U+FFFD.
	ReplacedUTF8 int `json:"invalid_utf8_replaced"`

	chunks       int           // write transactions
	longestChunk time.Duration // the longest a write transaction held the lock
}

// importPace bounds how long an import holds the write lock at a time.
type importPace struct {
	chunkTraces int           // traces per write transaction at most
	chunkTime   time.Duration // a transaction holds the lock this long at most, commit included
	yield       time.Duration // the lock is left free this long between chunks
}

// defaultPace keeps every write transaction of an import short (200 ms,
// within the ~250 ms of lock at a time docs/reliability.md promises, commit included; the count
// only bounds the memory a chunk holds) and leaves the lock free long enough
// between them for a writer waiting on its busy timeout (SQLite retries
// every 100 ms at most) to get in.
func defaultPace() importPace {
	return importPace{chunkTraces: 4000, chunkTime: 200 * time.Millisecond, yield: 110 * time.Millisecond}
}

// ImportTraces imports one input, all of it or nothing, without holding
// the database's write lock for long, so reviewers can label during an
// import of any size.
//
// The input is read once, and written while it is read: one goroutine
// parses and validates its records, another encodes each (canonical JSON,
// hashes, items, the compressed body), and this one writes them, in the
// input's order, in short transactions (opt.pace), looking up which are
// stored already 64 at a time in each (traceWriter.lookAhead) and
// remembering each trace it inserted. The queues between them are short, so memory stays
// bounded whatever the input's size. When the import fails — an invalid
// record (a *trace.RecordError, also for a trace id stored with other
// content) without opt.SkipInvalid, an input that cannot be read (a
// *trace.ReadError), a concurrent writer that stored one of its trace ids
// with other content, a full disk, … — the traces it inserted are deleted
// again, in short transactions too, and the error is returned: nothing is
// half-imported. An input with no records is ErrNoRecords.
//
// Trade-offs: other connections see the input's traces appear chunk by
// chunk while it is written, and may see them vanish if the import then
// fails (an invalid last record undoes all the chunks before it). A trace
// another process has already sampled into a batch cannot be deleted (its
// items are referenced); it stays stored and the error says so
// (*UndoError). When the undo itself fails (a full disk), what was written
// stays and the import stays recorded as unfinished: running it again
// completes it. An interrupted import (ctx cancelled: SIGINT, SIGHUP) keeps
// its committed chunks, rolls back the unfinished one and is recorded as
// stopped (*InterruptedError); a process killed meanwhile leaves the
// traces written so far (each complete) and the import's record. Importing
// the input again completes it: traces already stored are counted as
// duplicates.
func (s *Store) ImportTraces(ctx context.Context, open Opener, opt ImportOptions) (ImportResult, error) {
	if opt.pace == (importPace{}) {
		opt.pace = defaultPace()
	}
	// An earlier run of the same import that stopped stays recorded as
	// such if this one fails.
	prior, err := s.unfinishedImport(ctx, opt.Source)
	if err != nil {
		return ImportResult{Source: opt.Source}, err
	}
	in, err := open()
	if err != nil {
		return ImportResult{Source: opt.Source}, err
	}
	reserve := reserveSpace(filepath.Dir(s.Path()), undoReserve(in.Size))
	defer reserve.release()
	// The reader stops the writer (wctx) as soon as it fails: what is
	// still queued would only be undone.
	wctx, abort := context.WithCancelCause(ctx)
	defer abort(nil)
	rd := s.startReading(ctx, in, opt, abort)
	restore := s.db.BulkTuning(ctx, 32)
	w, err := s.writeInput(wctx, rd, opt, in.Size)
	restore()
	if err != nil && ctx.Err() == nil && wctx.Err() != nil {
		err = context.Cause(wctx) // the reader's failure
	}
	rd.stop()
	bg := context.WithoutCancel(ctx)
	if err != nil && ctx.Err() != nil && w.recorded {
		// Interrupted once its last record was committed: nothing is left
		// to write, the import is finished.
		if total := rd.totalIfRead(); total > 0 && w.at.Written == total {
			err = nil
		}
	}
	switch {
	case err != nil && ctx.Err() != nil && !w.recorded:
		return w.res, fmt.Errorf("import interrupted: %w", ctx.Err()) // nothing written
	case err != nil && ctx.Err() != nil:
		// Interrupted: the chunks committed so far stay (the unfinished one
		// was rolled back), and the import is recorded as stopped, so
		// that running it again finishes it.
		at := w.stopped()
		if at.Total == 0 {
			at.Total = rd.totalIfRead() // read to its end after the last chunk
		}
		if serr := s.stopImport(bg, opt.Source, at); serr != nil {
			return w.res, serr
		}
		s.checkpoint(bg)
		return w.res, &InterruptedError{Source: opt.Source, At: at, Err: ctx.Err()}
	case err != nil:
		reserve.release() // room for the undo on a full disk
		return ImportResult{Source: opt.Source}, s.undoWrites(bg, w, prior, opt, err)
	}
	// Written with synchronous=NORMAL: this last commit, with FULL again,
	// syncs the log and everything written before it. Everything is
	// written: an interrupt now does not stop it.
	finish := s.forgetImport
	if prior != nil && w.res.Duplicates+w.res.Skipped < prior.Written {
		// An earlier stopped import under the same name whose records
		// this one did not find stored (another stdin): it stays
		// unfinished, as it was.
		finish = func(ctx context.Context, _ string) error { return s.putImportBack(ctx, *prior) }
	}
	if err := finish(bg, opt.Source); err != nil {
		return w.res, err
	}
	s.checkpoint(bg)
	w.res.ReplacedUTF8 = rd.replacedUTF8
	return w.res, nil
}

// undoWrites deletes what a failed import (err) wrote and returns the
// error to report: err, or an *UndoError saying what stays.
func (s *Store) undoWrites(ctx context.Context, w importWrite, prior *UnfinishedImport, opt ImportOptions, err error) error {
	if !w.recorded {
		return err // no chunk was committed: nothing to undo
	}
	source := opt.Source
	if prior != nil {
		source = "" // the record stays, put back as it was
	}
	uerr := s.undoImport(ctx, w.inserted, source, opt.Source, opt.pace)
	switch {
	case uerr != nil && uerr.UndoErr != nil:
		// What was written stays, recorded as an unfinished import (if
		// even this update fails, the last chunk's progress stands):
		// running the import again finishes it.
		_ = s.stopImport(ctx, opt.Source, w.stopped())
	case prior != nil:
		_ = s.putImportBack(ctx, *prior)
		s.checkpoint(ctx)
	default:
		_ = s.forgetImport(ctx, opt.Source) // what was written is undone: nothing to finish
		s.checkpoint(ctx)
	}
	if uerr != nil {
		uerr.Err = err
		return uerr
	}
	return err
}

// InterruptedError is an import stopped by its context (SIGINT, SIGHUP,
// SIGTERM): the records up to At were written, the rest was not.
type InterruptedError struct {
	Source string
	At     ImportPoint
	Err    error
}

func (e *InterruptedError) Error() string {
	return fmt.Sprintf("interrupted: %s", e.Note())
}

// Note says where the import stopped and what to do.
func (e *InterruptedError) Note() string {
	return fmt.Sprintf("stopped at %s (the unfinished chunk was undone) — run the same import again to finish", e.At)
}

func (e *InterruptedError) Unwrap() error { return e.Err }

// ImportPoint is how far an import got: Written records of Total (0 while
// the input has not been read to its end), and Read of the input's Size
// bytes (0 when unknown) when the last of them was read.
type ImportPoint struct {
	Written int   `json:"written"`
	Total   int   `json:"total"`
	Read    int64 `json:"read_bytes"`
	Size    int64 `json:"size_bytes"`
}

// String is "N of M traces" when the total is known, else "N traces, X% of
// the file read" (or "N traces" when the input's size is not known).
func (p ImportPoint) String() string {
	switch {
	case p.Total > 0:
		return fmt.Sprintf("%d of %d traces", p.Written, p.Total)
	case p.Size > 0:
		return fmt.Sprintf("%d traces, %d%% of the file read", p.Written, readPercent(p.Read, p.Size))
	}
	return fmt.Sprintf("%d traces", p.Written)
}

// readPercent is read/size in whole percent, 100 only when all was read.
func readPercent(read, size int64) int {
	pct := int(100 * read / size)
	if pct >= 100 && read < size {
		return 99
	}
	return min(pct, 100)
}
