package store

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"
	"time"

	"github.com/goldtrace/goldtrace/trace"
)

// ErrNoRecords is the import of an input that holds no records at all.
var ErrNoRecords = errors.New("no records")

// ErrInputChanged: the input read differently the second time.
var ErrInputChanged = errors.New("input changed while it was being imported")

// Opener opens one input. ImportTraces calls it once per pass and closes
// what it returns; an error from Close fails that pass (an Opener may use it
// to report that the bytes read differ from the first pass).
type Opener func() (trace.Reader, io.Closer, error)

// ImportOptions say how ImportTraces treats one input.
type ImportOptions struct {
	// Source names the input (its path); it is stored with each trace.
	Source string
	// SkipInvalid imports the valid records and reports the invalid ones to
	// OnInvalid; without it the first invalid record aborts the input.
	SkipInvalid bool
	// OnInvalid receives each skipped record (SkipInvalid only).
	OnInvalid func(*trace.RecordError)
	// OnProgress, when set, is called every ProgressEvery records while the
	// input is checked and after each chunk is written.
	OnProgress func(ImportProgress)

	pace importPace // zero: defaultPace; tests shorten it
}

// ProgressEvery is how many records pass between OnProgress calls while
// the input is checked.
const ProgressEvery = 5000

// ImportProgress is where an import is.
type ImportProgress struct {
	// Checking is true during the first pass (reading and validating,
	// nothing written yet), false while traces are written.
	Checking bool
	// Records is how many records have been read in the current pass.
	Records int
	// Total is how many records the input holds: known once the first
	// pass is done (0 before).
	Total int
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
}

// importPace bounds how long an import holds the write lock at a time.
type importPace struct {
	chunkTraces int           // traces per write transaction at most
	chunkTime   time.Duration // a transaction commits once it has run this long
	yield       time.Duration // the lock is left free this long between chunks
}

// defaultPace keeps every write transaction of an import short (about
// 200 ms, within DESIGN.md's ~250 ms of lock at a time, commit included) and
// leaves the lock free long enough between them for a writer waiting on its
// busy timeout (SQLite retries every 100 ms at most) to get in.
func defaultPace() importPace {
	return importPace{chunkTraces: 2000, chunkTime: 200 * time.Millisecond, yield: 110 * time.Millisecond}
}

// ImportTraces imports one input, all of it or nothing, without holding
// the database's write lock for long, so reviewers can label during an
// import of any size.
//
// The first pass reads and validates every record with no lock held and
// writes nothing: an invalid record (a *trace.RecordError, also for a trace
// id stored with other content) aborts the import unless opt.SkipInvalid,
// an input that cannot be read (a *trace.ReadError) always does, and an
// input with no records is ErrNoRecords. The second pass opens the input
// again and writes its traces in short transactions (opt.pace), remembering
// each trace it inserted. If the second pass fails (the context is
// cancelled, the input cannot be read or reads differently than the first
// time — ErrInputChanged —, a concurrent writer stored one of its trace ids
// with other content), the traces it inserted are deleted again, in short
// transactions too, and the error is returned: nothing is half-imported.
// (A trace id that appears twice in the input with different content is
// caught there too; with opt.SkipInvalid it is reported after the first
// pass's reports.)
//
// Trade-offs: other connections see the input's traces appear chunk by
// chunk while it is written, and may see them vanish if the import then
// fails. A trace another process has already sampled into a batch cannot be
// deleted (its items are referenced); it stays stored and the error says so
// (*UndoError). A process killed during the second pass leaves the traces
// written so far (each complete); importing the input again completes it.
// Traces already stored are counted as duplicates.
func (s *Store) ImportTraces(ctx context.Context, open Opener, opt ImportOptions) (ImportResult, error) {
	if opt.pace == (importPace{}) {
		opt.pace = defaultPace()
	}
	checked, err := s.checkInput(ctx, open, opt)
	if err != nil {
		return ImportResult{Source: opt.Source}, err
	}
	if opt.OnProgress != nil {
		opt.OnProgress(ImportProgress{Total: checked.records, ImportResult: ImportResult{Source: opt.Source, Skipped: len(checked.skip)}})
	}
	if err := s.recordImport(ctx, opt.Source, checked.records); err != nil {
		return ImportResult{Source: opt.Source}, err
	}
	restore := s.bulkWrites(ctx)
	res, inserted, done, err := s.writeInput(ctx, open, opt, checked)
	restore()
	if err != nil && ctx.Err() != nil {
		// Interrupted: the chunks committed so far stay (the unfinished one
		// was rolled back), and the import is recorded as stopped, so
		// that running it again finishes it.
		bg := context.WithoutCancel(ctx)
		if serr := s.stopImport(bg, opt.Source, done); serr != nil {
			return res, serr
		}
		s.checkpoint(bg)
		return res, &InterruptedError{Source: opt.Source, Done: done, Total: checked.records, Err: ctx.Err()}
	}
	if err != nil {
		bg := context.WithoutCancel(ctx)
		uerr := s.undoImport(bg, inserted, opt.pace)
		_ = s.forgetImport(bg, opt.Source) // what was written is undone: nothing to finish
		s.checkpoint(bg)
		if uerr != nil {
			uerr.Err = err
			return ImportResult{Source: opt.Source}, uerr
		}
		return ImportResult{Source: opt.Source}, err
	}
	// Written with synchronous=NORMAL: this last commit, with FULL again,
	// syncs the log and everything written before it.
	if err := s.forgetImport(ctx, opt.Source); err != nil {
		return res, err
	}
	s.checkpoint(ctx)
	return res, nil
}

// InterruptedError is an import stopped by its context (SIGINT, SIGHUP,
// SIGTERM): Done of Total records were written, the rest was not.
type InterruptedError struct {
	Source      string
	Done, Total int
	Err         error
}

func (e *InterruptedError) Error() string {
	return fmt.Sprintf("interrupted: %s", e.Note())
}

// Note says where the import stopped and what to do.
func (e *InterruptedError) Note() string {
	return fmt.Sprintf("stopped at %d of %d traces (the unfinished chunk was undone) — run the same import again to finish", e.Done, e.Total)
}

func (e *InterruptedError) Unwrap() error { return e.Err }

// checkedInput is what the first pass learned about an input.
type checkedInput struct {
	records int
	// replacedUTF8 is the reader's count of traces whose invalid UTF-8 was
	// replaced.
	replacedUTF8 int
	// skip holds the record numbers (1-based, in reading order) reported
	// invalid; the second pass skips them.
	skip map[int]bool
	// digest fingerprints the sequence of records (number, line, trace id
	// and size, or error) so the second pass can tell it reads the same
	// input; an Opener's Close can compare the bytes themselves.
	digest [sha256.Size]byte
}

// recordDigest fingerprints the records of one pass.
type recordDigest struct{ h hash.Hash }

func newRecordDigest() recordDigest { return recordDigest{sha256.New()} }

func (d recordDigest) add(n, line int, t trace.Trace, err error) {
	var b [24]byte
	binary.LittleEndian.PutUint64(b[:8], uint64(n))
	binary.LittleEndian.PutUint64(b[8:], uint64(line))
	binary.LittleEndian.PutUint64(b[16:], uint64(approxSize(t)))
	id := t.ID
	d.h.Write(b[:])
	if err != nil {
		id = "\x00invalid"
	}
	d.h.Write([]byte(id))
	d.h.Write([]byte{0})
}

func (d recordDigest) sum() (out [sha256.Size]byte) {
	copy(out[:], d.h.Sum(nil))
	return out
}

func lineOf(r trace.Reader) int {
	if lr, ok := r.(interface{ Line() int }); ok {
		return lr.Line()
	}
	return 0
}

// pendingRecord is a record of the first pass waiting for the conflict
// check of its batch, so that reports keep the input's order.
type pendingRecord struct {
	n, line int
	t       trace.Trace
	err     *trace.RecordError
}

// conflictBatch is how many records the first pass looks up at once.
const (
	conflictBatch      = 256
	conflictBatchBytes = 16 << 20
)

// checkInput is the first pass: read and validate every record, and look
// up each trace id among the stored traces (through the read pool: no lock).
func (s *Store) checkInput(ctx context.Context, open Opener, opt ImportOptions) (checkedInput, error) {
	r, closer, err := open()
	if err != nil {
		return checkedInput{}, err
	}
	closed := false
	defer func() {
		if !closed {
			closer.Close()
		}
	}()
	c := checkedInput{skip: map[int]bool{}}
	digest := newRecordDigest()
	var pending []pendingRecord
	pendingBytes := 0
	invalid := func(n int, rerr *trace.RecordError) error {
		if !opt.SkipInvalid {
			return rerr
		}
		c.skip[n] = true
		if opt.OnInvalid != nil {
			opt.OnInvalid(rerr)
		}
		return nil
	}
	flush := func() error {
		stored, err := s.storedHashes(ctx, pending)
		if err != nil {
			return err
		}
		for _, p := range pending {
			h, isStored := stored[p.t.ID]
			var mine string
			if p.err == nil && isStored {
				if mine, err = trace.ContentHash(p.t); err != nil {
					p.err = &trace.RecordError{Line: p.line, Err: err}
				}
			}
			switch {
			case p.err != nil:
				err = invalid(p.n, p.err)
			case isStored && mine != h:
				err = invalid(p.n, &trace.RecordError{Line: p.line, Err: fmt.Errorf("trace id %q %w", p.t.ID, errStoredDifferently)})
			}
			if err != nil {
				return err
			}
		}
		pending, pendingBytes = pending[:0], 0
		return nil
	}
	for {
		if err := ctx.Err(); err != nil {
			return checkedInput{}, err
		}
		t, err := r.Next()
		if err == io.EOF {
			break
		}
		var rerr *trace.RecordError
		if err != nil && !errors.As(err, &rerr) {
			return checkedInput{}, err
		}
		c.records++
		line := lineOf(r)
		digest.add(c.records, line, t, err)
		pending = append(pending, pendingRecord{n: c.records, line: line, t: t, err: rerr})
		pendingBytes += approxSize(t)
		if len(pending) >= conflictBatch || pendingBytes >= conflictBatchBytes {
			if err := flush(); err != nil {
				return checkedInput{}, err
			}
		}
		if opt.OnProgress != nil && c.records%ProgressEvery == 0 {
			opt.OnProgress(ImportProgress{Checking: true, Records: c.records, ImportResult: ImportResult{Source: opt.Source, Skipped: len(c.skip)}})
		}
	}
	if err := flush(); err != nil {
		return checkedInput{}, err
	}
	if rr, ok := r.(interface{ ReplacedUTF8() int }); ok {
		c.replacedUTF8 = rr.ReplacedUTF8()
	}
	closed = true
	if err := closer.Close(); err != nil {
		return checkedInput{}, err
	}
	if c.records == 0 {
		return checkedInput{}, ErrNoRecords
	}
	c.digest = digest.sum()
	return c, nil
}

// approxSize is roughly how much memory t holds.
func approxSize(t trace.Trace) int {
	n := 0
	for _, m := range t.Messages {
		n += len(m.Content) + 64
		for _, c := range m.ToolCalls {
			n += len(c.Arguments) + 64
		}
	}
	return n
}

// storedHashes returns the content hash of each pending trace id that is
// already stored.
func (s *Store) storedHashes(ctx context.Context, pending []pendingRecord) (map[string]string, error) {
	args := []any{}
	for _, p := range pending {
		if p.err == nil {
			args = append(args, p.t.ID)
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
