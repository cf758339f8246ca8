package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// ScanCandidates calls fn with the row and stratum of every item matching
// f, in the order that decides duplicates (sampling.Earlier): items with a
// timestamp by (timestamp, trace id, turn), then items without one by
// (trace id, turn). It reads one covering index (and items_status for
// f.ExcludeSampled; the item row of an item whose input hash has no key,
// see the input_keys migration). CandidatesByRow fills in the rest for the
// few rows kept.
//
// Reading the rows is most of a sample's time, so it runs beside fn: the
// timestamped items are read in parts (slices of their time span), the
// items without a timestamp in a last part, by two readers on read
// connections of their own, each taking the next part not yet taken, while
// fn runs on the caller's goroutine over the rows read so far, part by
// part, held until fn gets to them. fn sees every row, in order, from one
// goroutine.
func (s *Store) ScanCandidates(ctx context.Context, f CandidateFilter, fn func(row int64, stratum string) error) error {
	return s.ScanCandidateRuns(ctx, f, func(c *CandidateRun) error {
		for i := range c.Len() {
			row, _, stratum := c.Row(i)
			if err := fn(row, stratum); err != nil {
				return err
			}
		}
		return nil
	})
}

// ScanCandidateRuns is ScanCandidates handing fn the rows a run at a time
// (up to a few thousand, valid during the call) with their inputs' keys
// (sampling.KeyedRows): a sampler can then look ahead within a run
// (sampling.Sampler.OfferRows).
func (s *Store) ScanCandidateRuns(ctx context.Context, f CandidateFilter, fn func(*CandidateRun) error) error {
	spans, err := s.candidateSpans(ctx, f)
	if err != nil {
		return err
	}
	var parts []candidatePart
	for _, h := range spans {
		q, args, err := candidateQuery(h, true)
		if err != nil {
			return err
		}
		parts = append(parts, candidatePart{q, args})
	}
	q, args, err := candidateQuery(f, false)
	if err != nil {
		return err
	}
	parts = append(parts, candidatePart{q, args})
	if !f.ExcludeSampled {
		return s.scanParts(ctx, parts, fn)
	}
	// The items in a batch are read beside the first parts' rows, and
	// left out of the runs on fn's goroutine.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	inBatch := make(chan inBatchItems, 1)
	go func() {
		var b inBatchItems
		b.rows, b.hashes, b.err = s.inBatch(ctx)
		inBatch <- b
	}()
	var skip *rowSet
	ready := false
	wait := func() error {
		ready = true
		b := <-inBatch
		if b.err != nil {
			return b.err
		}
		skip = b.rows
		if f.Sampled != nil {
			f.Sampled(b.hashes)
		}
		return nil
	}
	err = s.scanParts(ctx, parts, func(c *CandidateRun) error {
		if !ready {
			if err := wait(); err != nil {
				return err
			}
		}
		if c.leaveOut(skip); c.Len() == 0 {
			return nil
		}
		return fn(c)
	})
	if !ready {
		// No row reached fn: the hashes are still handed over (none of
		// the items matched, but the caller may count on them), unless
		// the scan failed, when the read's outcome does not matter.
		if err != nil {
			cancel()
		}
		if werr := wait(); err == nil {
			err = werr
		}
	}
	return err
}

type inBatchItems struct {
	rows   *rowSet
	hashes []string
	err    error
}

// inBatch reads the rows and input hashes of the items in a batch: those
// with in_batch set (whose status is not 'new', which an item leaves when
// a batch draws it and gets back only when the last batch holding it is
// removed), in one pass over items_sampled_inputs, which holds both. A hash is listed once per
// item holding it.
func (s *Store) inBatch(ctx context.Context) (*rowSet, []string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT rowid, input_hash FROM items INDEXED BY items_sampled_inputs WHERE in_batch = 1`)
	if err != nil {
		return nil, nil, fmt.Errorf("scan candidates: %w", err)
	}
	defer rows.Close()
	var list []int64
	var hashes []string
	for rows.Next() {
		var r int64
		var h string
		if err := rows.Scan(&r, &h); err != nil {
			return nil, nil, fmt.Errorf("scan candidates: %w", err)
		}
		list, hashes = append(list, r), append(hashes, h)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("scan candidates: %w", err)
	}
	return newRowSet(list), hashes, nil
}

// rowSet is a set of rows that a scan asks about once per row: a bitmap
// when the rows are small numbers (they are, unless rowids were given), a
// map otherwise.
type rowSet struct {
	bits []uint64
	big  map[int64]struct{}
}

// rowSetBits bounds a rowSet's bitmap: rows up to 2^26, 8 MB.
const rowSetBits = 1 << 26

func newRowSet(rows []int64) *rowSet {
	var low, top int64
	for _, r := range rows {
		low, top = min(low, r), max(top, r)
	}
	s := &rowSet{}
	if low >= 0 && top < rowSetBits {
		s.bits = make([]uint64, top/64+1)
		for _, r := range rows {
			s.bits[r/64] |= 1 << (r % 64)
		}
		return s
	}
	s.big = make(map[int64]struct{}, len(rows))
	for _, r := range rows {
		s.big[r] = struct{}{}
	}
	return s
}

func (s *rowSet) has(r int64) bool {
	if s == nil {
		return false
	}
	if s.big != nil {
		_, ok := s.big[r]
		return ok
	}
	return r >= 0 && r/64 < int64(len(s.bits)) && s.bits[r/64]&(1<<(r%64)) != 0
}

type candidatePart struct {
	query string
	args  []any
}

// candidateSpans splits f's timestamped items into candidateParts slices of
// their time span (within f's --since/--until), fewer when the span has
// fewer seconds: f itself when it is one second. Several parts, not one per
// reader, so that the readers share the work whatever the items' spread in
// time: each takes the next part when done with one, and fn, reading the
// parts in order, is left with little of the last to go through alone.
func (s *Store) candidateSpans(ctx context.Context, f CandidateFilter) ([]CandidateFilter, error) {
	// Two queries: SQLite answers min() and max() from the index only
	// when each is alone.
	var lo, hi sql.NullInt64
	if err := s.r.QueryRowContext(ctx, `SELECT min(ts_unix) FROM items`).Scan(&lo); err != nil {
		return nil, fmt.Errorf("scan candidates: %w", err)
	}
	if err := s.r.QueryRowContext(ctx, `SELECT max(ts_unix) FROM items`).Scan(&hi); err != nil {
		return nil, fmt.Errorf("scan candidates: %w", err)
	}
	if !f.Since.IsZero() {
		lo.Int64 = max(lo.Int64, f.Since.Unix())
	}
	if !f.Until.IsZero() {
		hi.Int64 = min(hi.Int64, f.Until.Unix()-1)
	}
	if !lo.Valid || !hi.Valid || hi.Int64 <= lo.Int64 {
		return []CandidateFilter{f}, nil
	}
	var spans []CandidateFilter
	from := f.Since
	span := hi.Int64 - lo.Int64 + 1
	for i := int64(1); i < candidateParts; i++ {
		at := lo.Int64 + span*i/candidateParts
		if at <= lo.Int64 || (!from.IsZero() && at <= from.Unix()) {
			continue
		}
		part := f
		part.Since, part.Until = from, time.Unix(at, 0)
		spans = append(spans, part)
		from = part.Until
	}
	last := f
	last.Since = from
	return append(spans, last), nil
}

// candidateParts is how many slices of their time span the timestamped
// items are read in.
const candidateParts = 8

// candidateReaders is how many parts are read at once.
const candidateReaders = 2

// scanParts reads the parts, candidateReaders at a time, each on a
// goroutine that takes the next part not yet taken, and calls fn with
// the rows of every part in turn, from this goroutine. A reader takes a
// part only when fn has reached the part candidateAhead before it, so at
// most that many parts' rows (about 40 bytes each) are held for fn, and a
// part holds up to candidateHeldRuns runs before its reader waits for fn.
func (s *Store) scanParts(ctx context.Context, parts []candidatePart, fn func(*CandidateRun) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var free candidateRuns
	outs := make([]chan *CandidateRun, len(parts))
	for i := range outs {
		outs[i] = make(chan *CandidateRun, candidateHeldRuns)
	}
	errs := make([]error, len(parts))
	// turns[i] lets a reader take part i: the first candidateAhead parts
	// at once, each later one once fn is done with the part
	// candidateAhead before it.
	turns := make([]chan struct{}, len(parts))
	for i := range turns {
		turns[i] = make(chan struct{}, 1)
		if i < candidateAhead {
			turns[i] <- struct{}{}
		}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(candidateReaders, len(parts)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(parts) {
					return
				}
				select {
				case <-turns[i]:
				case <-ctx.Done():
				}
				if ctx.Err() == nil {
					errs[i] = s.bulkScan(ctx, func() error {
						return s.readCandidates(ctx, parts[i], outs[i], &free)
					})
					if errs[i] != nil {
						cancel() // fn gets no further than this part
					}
				}
				close(outs[i])
			}
		}()
	}
	var err error
	for i, out := range outs {
		for c := range out {
			if err == nil {
				if err = ctx.Err(); err == nil {
					err = fn(c)
				}
				if err != nil {
					cancel() // the readers stop at their next run
				}
			}
			free.put(c)
		}
		if i+candidateAhead < len(parts) {
			turns[i+candidateAhead] <- struct{}{}
		}
	}
	wg.Wait()
	if err != nil {
		return err
	}
	// The reader's error, not the cancellation it made the others see.
	for _, e := range errs {
		if e != nil && !errors.Is(e, context.Canceled) {
			return e
		}
	}
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return ctx.Err()
}

// candidateAhead bounds the parts read and not yet gone through by fn.
const candidateAhead = 3

// candidateHeldRuns bounds the runs a part holds for fn: 512k rows, about
// 20 MB (a reader that gets that far waits for fn).
const candidateHeldRuns = 256

// CandidateRun is up to candidateRunRows rows of a candidate scan, held
// in about 40 bytes a row: each input's key, the hashes of the rows
// without one end to end in one buffer, each stratum as its place in the
// reader's list of names.
type CandidateRun struct {
	rows   []int64
	keys   [][2]uint64 // row i's input_hi and input_lo
	keyed  []bool      // whether row i has them
	ends   []int32     // hashes[ends[i-1]:ends[i]] is row i's input hash when it has no key
	hashes []byte
	strata []uint16
	names  []string // the reader's strata when the run was sent
}

const candidateRunRows = 2048

// Len is how many rows the run holds.
func (c *CandidateRun) Len() int { return len(c.rows) }

// Key is row i's input key: its hash's first and second 64 bits when the
// hash is 64 lowercase hex digits (ok), as sampling.KeyedRows says.
func (c *CandidateRun) Key(i int) (hi, lo uint64, ok bool) {
	return c.keys[i][0], c.keys[i][1], c.keyed[i]
}

// Row is the run's row i: the item's row, its input hash (empty when Key
// gives the row's key) and its stratum.
func (c *CandidateRun) Row(i int) (row int64, inputHash []byte, stratum string) {
	start := 0
	if i > 0 {
		start = int(c.ends[i-1])
	}
	end := int(c.ends[i])
	return c.rows[i], c.hashes[start:end:end], c.names[c.strata[i]]
}

// leaveOut removes the rows in skip from the run, keeping the others in
// order.
func (c *CandidateRun) leaveOut(skip *rowSet) {
	if skip == nil {
		return
	}
	n, start := 0, 0
	hashes := c.hashes[:0] // written no further than read
	for i, row := range c.rows {
		end := int(c.ends[i])
		if !skip.has(row) {
			hashes = append(hashes, c.hashes[start:end]...)
			c.rows[n], c.keys[n], c.keyed[n], c.strata[n] = row, c.keys[i], c.keyed[i], c.strata[i]
			c.ends[n] = int32(len(hashes))
			n++
		}
		start = end
	}
	c.rows, c.keys, c.keyed, c.ends, c.strata, c.hashes = c.rows[:n], c.keys[:n], c.keyed[:n], c.ends[:n], c.strata[:n], hashes
}

// candidateRuns are the runs fn is done with, for the readers to fill
// again.
type candidateRuns struct {
	mu   sync.Mutex
	list []*CandidateRun
}

func (p *candidateRuns) get() *CandidateRun {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.list); n > 0 {
		c := p.list[n-1]
		p.list = p.list[:n-1]
		c.rows, c.keys, c.keyed, c.ends, c.hashes, c.strata = c.rows[:0], c.keys[:0], c.keyed[:0], c.ends[:0], c.hashes[:0], c.strata[:0]
		return c
	}
	const n = candidateRunRows
	return &CandidateRun{rows: make([]int64, 0, n), keys: make([][2]uint64, 0, n), keyed: make([]bool, 0, n),
		ends: make([]int32, 0, n), strata: make([]uint16, 0, n)}
}

func (p *candidateRuns) put(c *CandidateRun) {
	p.mu.Lock()
	p.list = append(p.list, c)
	p.mu.Unlock()
}

// readCandidates reads one query's rows into runs and sends each one full
// to out. It reads through the driver's own rows, as database/sql would
// but without its locking and conversion for every value: half the work
// of a row besides SQLite's.
func (s *Store) readCandidates(ctx context.Context, p candidatePart, out chan<- *CandidateRun, free *candidateRuns) error {
	conn, err := s.r.Conn(ctx)
	if err != nil {
		return fmt.Errorf("scan candidates: %w", err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		q, ok := dc.(driver.QueryerContext)
		if !ok {
			return fmt.Errorf("the %T driver cannot query", dc)
		}
		args := make([]driver.NamedValue, len(p.args))
		for i, a := range p.args {
			args[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
		}
		rows, err := q.QueryContext(ctx, p.query, args)
		if err != nil {
			return err
		}
		defer rows.Close()
		return readCandidateRows(ctx, rows, out, free, func(row int64) (string, error) {
			var h string
			err := s.r.QueryRowContext(ctx, `SELECT input_hash FROM items WHERE rowid = ?`, row).Scan(&h)
			if errors.Is(err, sql.ErrNoRows) {
				err = fmt.Errorf("item row %d vanished while sampling", row)
			}
			return h, err
		})
	})
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("scan candidates: %w", err)
	}
	return ctx.Err()
}

// readCandidateRows is readCandidates' loop over the driver's rows of
// (row, input_hi, input_lo, stratum). A row
// whose key is 0 and 0 gets its
// input hash from hashOf: a hash that is not 64 lowercase hex digits has
// no key (see the input_keys migration).
func readCandidateRows(ctx context.Context, rows driver.Rows, out chan<- *CandidateRun, free *candidateRuns, hashOf func(row int64) (string, error)) error {
	dest := make([]driver.Value, 4)
	// Each stratum's name once, not once per row.
	strata := map[string]uint16{}
	var names []string
	var c *CandidateRun
	send := func() error {
		c.names = names
		select {
		case out <- c:
			c = nil
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for {
		if err := rows.Next(dest); err == io.EOF {
			break
		} else if err != nil {
			return err
		}
		row, ok := dest[0].(int64)
		if !ok {
			return fmt.Errorf("row number %v (%T)", dest[0], dest[0])
		}
		if c == nil {
			c = free.get()
		}
		stratum, ok := text(dest[3])
		hi, okHi := dest[1].(int64)
		lo, okLo := dest[2].(int64)
		if !ok || !okHi || !okLo {
			return fmt.Errorf("row %d: input key %v, %v (%T, %T), stratum %v (%T): not two numbers and text", row, dest[1], dest[2], dest[1], dest[2], dest[3], dest[3])
		}
		keyed := hi != 0 || lo != 0
		if !keyed {
			hash, err := hashOf(row)
			if err != nil {
				return err
			}
			c.hashes = append(c.hashes, hash...)
		}
		name, seen := strata[stratum]
		if !seen {
			if len(names) > math.MaxUint16 {
				return fmt.Errorf("more than %d strata", math.MaxUint16+1)
			}
			name = uint16(len(names))
			names = append(names, stratum)
			strata[stratum] = name
		}
		c.rows = append(c.rows, row)
		c.keys, c.keyed = append(c.keys, [2]uint64{uint64(hi), uint64(lo)}), append(c.keyed, keyed)
		c.ends = append(c.ends, int32(len(c.hashes)))
		c.strata = append(c.strata, name)
		if len(c.rows) == candidateRunRows {
			if err := send(); err != nil {
				return err
			}
		}
	}
	if c != nil {
		return send()
	}
	return nil
}

// text is a driver's text value as a string.
func text(v driver.Value) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case []byte:
		return string(v), true
	}
	return "", false
}
