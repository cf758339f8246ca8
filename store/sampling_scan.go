package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/goldtrace/goldtrace/sampling"
)

// DrawCandidates offers smp (an exact-mode sampler, sampling.NewSampler
// with ordered true) every item matching f, grouped by f.By, and with
// f.ExcludeSampled leaves out the items in a batch and has smp exclude
// their inputs (sampling.Sampler.Exclude). smp then draws what it would
// from the items offered one by one in Earlier order.
//
// It reads the covering index items_sampling, which is ordered by first
// tool, then input key: one query per tool, so that the tool is a
// parameter rather than a column each row hands over (what a row costs is
// mostly its columns), in candidateParts slices of the input key's range,
// so that every copy of an input is in one slice. candidateReaders
// readers take the next slice not yet taken, each on a read connection
// and a part of smp of its own (sampling.Sampler.Part), which keeps the
// earliest copy of each input; smp joins the parts at the end. The rows
// whose hash has no key (input_hi and input_lo 0, see the input_keys
// migration) are read first, with their hash, and go to the slice of
// the key the sampler gives that hash.
func (s *Store) DrawCandidates(ctx context.Context, f CandidateFilter, smp *sampling.Sampler) error {
	scan, err := s.candidateScan(ctx, f)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The items in a batch are read beside the rows of the first slices,
	// which wait for them before they gather.
	ready := make(chan struct{})
	var skip *rowSet
	var inBatchErr error
	if f.ExcludeSampled {
		go func() {
			defer close(ready)
			var hashes []string
			skip, hashes, inBatchErr = s.inBatch(ctx)
			if inBatchErr == nil {
				smp.Exclude(hashes)
			}
		}()
	} else {
		close(ready)
	}
	wait := func() error {
		select {
		case <-ready:
			return inBatchErr
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	odd, err := s.unkeyedCandidates(ctx, scan)
	if err == nil {
		scan.perPart, err = s.rowsPerPart(ctx)
	}
	if err != nil {
		cancel()
		<-ready
		return err
	}
	var next atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make([]error, candidateReaders)
	for w := range candidateReaders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var part *sampling.Sampler
			buf := newCandidateRows(scan.perPart)
			for ctx.Err() == nil {
				p := int(next.Add(1) - 1)
				if p >= candidateParts {
					break
				}
				buf.reset()
				err := s.bulkScan(ctx, func() error { return s.readPart(ctx, scan, p, buf) })
				if err == nil {
					err = wait()
				}
				if err == nil {
					if part == nil {
						part = smp.Part()
						part.Expect(scan.perPart)
					}
					err = s.gatherPart(ctx, scan, part, buf, skip, odd[p])
				}
				if err != nil {
					errs[w] = err
					cancel() // the other reader stops at its next row
					return
				}
			}
			if part != nil && ctx.Err() == nil {
				mu.Lock()
				smp.Join(part)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	<-ready
	// A reader's error, not the cancellation it made the other see.
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
	if err := ctx.Err(); err != nil {
		return err
	}
	return inBatchErr
}

// candidateParts is how many slices of the input key's range the index is
// read in: several per reader, so that the readers share the work to the
// end.
const candidateParts = 8

// candidateReaders is how many slices are read at once.
const candidateReaders = 2

// partOf is the slice of the input key's range that a key whose first 64
// bits are hi falls in: slice p holds the keys whose input_hi (hi as a
// signed number) lies in partBounds(p).
func partOf(hi uint64) int { return int((hi ^ 1<<63) >> 61) }

// partBounds are the least and greatest input_hi of slice p.
func partBounds(p int) (lo, hi int64) {
	from := uint64(p)<<61 ^ 1<<63
	return int64(from), int64(from + 1<<61 - 1)
}

// candidateRows are the rows of one slice as read, before any is gathered:
// each row's input key, item row, timestamp and stratum.
type candidateRows struct {
	keys    [][2]uint64
	rows    []int64
	ts      []int64
	hasTS   []bool
	stratum []int32
}

func newCandidateRows(n int) *candidateRows {
	return &candidateRows{keys: make([][2]uint64, 0, n), rows: make([]int64, 0, n), ts: make([]int64, 0, n),
		hasTS: make([]bool, 0, n), stratum: make([]int32, 0, n)}
}

// rowsPerPart is about how many rows a slice holds when every item matches
// (the items' rows spread evenly over the key range), within bounds: what
// a reader's buffers and table are sized for.
func (s *Store) rowsPerPart(ctx context.Context) (int, error) {
	n, err := s.ItemRowsBound(ctx)
	if err != nil {
		return 0, fmt.Errorf("scan candidates: %w", err)
	}
	return min(n/candidateParts*9/8+1024, 1<<20), nil
}

func (b *candidateRows) reset() {
	b.keys, b.rows, b.ts, b.hasTS, b.stratum = b.keys[:0], b.rows[:0], b.ts[:0], b.hasTS[:0], b.stratum[:0]
}

// readPart reads slice p of every tool's rows into buf. It reads through
// the driver's own rows, as database/sql would but without its locking and
// conversion for every value, with one statement for every tool.
func (s *Store) readPart(ctx context.Context, scan candidateScan, p int, buf *candidateRows) error {
	conn, err := s.r.Conn(ctx)
	if err != nil {
		return fmt.Errorf("scan candidates: %w", err)
	}
	defer conn.Close()
	lo, hi := partBounds(p)
	err = conn.Raw(func(dc any) error {
		pc, ok := dc.(driver.ConnPrepareContext)
		if !ok {
			return fmt.Errorf("the %T driver cannot prepare", dc)
		}
		stmt, err := pc.PrepareContext(ctx, scan.query)
		if err != nil {
			return err
		}
		defer stmt.Close()
		q, ok := stmt.(driver.StmtQueryContext)
		if !ok {
			return fmt.Errorf("the %T driver cannot query", stmt)
		}
		args := make([]driver.NamedValue, 3+len(scan.args))
		for i, a := range scan.args {
			args[3+i] = driver.NamedValue{Ordinal: 4 + i, Value: a}
		}
		dest := make([]driver.Value, scan.columns)
		for t, tool := range scan.tools {
			args[0] = driver.NamedValue{Ordinal: 1, Value: tool}
			args[1] = driver.NamedValue{Ordinal: 2, Value: lo}
			args[2] = driver.NamedValue{Ordinal: 3, Value: hi}
			if err := readToolRows(ctx, q, args, dest, scan, int32(t), buf); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("scan candidates: %w", err)
	}
	return ctx.Err()
}

// readToolRows appends the rows of one tool's query to buf: (input_hi,
// input_lo, rowid, ts_unix) and, with --by meta.NAME, metaset.
func readToolRows(ctx context.Context, q driver.StmtQueryContext, args []driver.NamedValue, dest []driver.Value, scan candidateScan, tool int32, buf *candidateRows) error {
	rows, err := q.QueryContext(ctx, args)
	if err != nil {
		return err
	}
	defer rows.Close()
	for n := 0; ; n++ {
		if n%4096 == 4095 && ctx.Err() != nil {
			return ctx.Err()
		}
		if err := rows.Next(dest); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		hi, okHi := dest[0].(int64)
		lo, okLo := dest[1].(int64)
		row, okRow := dest[2].(int64)
		if !okHi || !okLo || !okRow {
			return fmt.Errorf("input key %v, %v, row %v (%T, %T, %T): not numbers", dest[0], dest[1], dest[2], dest[0], dest[1], dest[2])
		}
		if hi == 0 && lo == 0 {
			continue // read with its hash (unkeyedCandidates)
		}
		ts, hasTS := dest[3].(int64)
		if !hasTS && dest[3] != nil {
			return fmt.Errorf("row %d: timestamp %v (%T): not a number", row, dest[3], dest[3])
		}
		stratum, err := scan.stratumOf(tool, dest)
		if err != nil {
			return fmt.Errorf("row %d: %w", row, err)
		}
		buf.keys = append(buf.keys, [2]uint64{uint64(hi), uint64(lo)})
		buf.rows, buf.ts, buf.hasTS = append(buf.rows, row), append(buf.ts, ts), append(buf.hasTS, hasTS)
		buf.stratum = append(buf.stratum, stratum)
	}
}

// gatherPart hands part the rows of one slice that are in no batch (skip),
// with the rows of that slice without a key (odd), and offers what it
// gathered, reading the trace id and turn of copies at the same time.
func (s *Store) gatherPart(ctx context.Context, scan candidateScan, part *sampling.Sampler, buf *candidateRows, skip *rowSet, odd []unkeyedCopy) error {
	for i, row := range buf.rows {
		if skip.has(row) {
			continue
		}
		part.AddCopy(buf.keys[i][0], buf.keys[i][1], sampling.Copy{Row: row, TS: buf.ts[i], HasTS: buf.hasTS[i], Stratum: buf.stratum[i]})
	}
	for _, c := range odd {
		if !skip.has(c.Row) {
			part.AddCopyHash(c.hash, c.Copy)
		}
	}
	var order map[int64]sampling.Order
	if tied := part.Tied(); len(tied) > 0 {
		var err error
		if order, err = s.candidateOrder(ctx, tied); err != nil {
			return fmt.Errorf("scan candidates: %w", err)
		}
	}
	return part.OfferCopies(scan.strata, order)
}

// candidateOrder reads the trace id and turn of these item rows.
func (s *Store) candidateOrder(ctx context.Context, rowids []int64) (map[int64]sampling.Order, error) {
	out := make(map[int64]sampling.Order, len(rowids))
	err := queryIn(ctx, s.r, `SELECT rowid, trace_id, turn FROM items WHERE rowid IN (`, rowids, func(rows *sql.Rows) error {
		var row int64
		var o sampling.Order
		if err := rows.Scan(&row, &o.TraceID, &o.Turn); err != nil {
			return err
		}
		out[row] = o
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, r := range rowids {
		if _, ok := out[r]; !ok {
			return nil, fmt.Errorf("item row %d vanished while sampling", r)
		}
	}
	return out, nil
}

// unkeyedCopy is a matching item whose input hash has no key, with it.
type unkeyedCopy struct {
	sampling.Copy
	hash string
}

// unkeyedCandidates reads the matching items whose input hash has no key
// (no goldtrace writes one; an index seek per tool finds there are none),
// each in the slice of the key the sampler makes of its hash.
func (s *Store) unkeyedCandidates(ctx context.Context, scan candidateScan) ([candidateParts][]unkeyedCopy, error) {
	var out [candidateParts][]unkeyedCopy
	for t, tool := range scan.tools {
		args := append([]any{tool}, scan.args...)
		rows, err := s.r.QueryContext(ctx, scan.unkeyed, args...)
		if err != nil {
			return out, fmt.Errorf("scan candidates: %w", err)
		}
		dest := make([]any, scan.columns+1)
		vals := make([]driver.Value, scan.columns)
		for i := range dest {
			dest[i] = new(any)
		}
		for rows.Next() {
			if err := rows.Scan(dest...); err != nil {
				rows.Close()
				return out, fmt.Errorf("scan candidates: %w", err)
			}
			for i := range vals {
				vals[i] = *dest[i].(*any)
			}
			row, _ := vals[2].(int64)
			hash, ok := text(*dest[scan.columns].(*any))
			if !ok {
				rows.Close()
				return out, fmt.Errorf("scan candidates: row %d: input hash is not text", row)
			}
			ts, hasTS := vals[3].(int64)
			stratum, err := scan.stratumOf(int32(t), vals)
			if err != nil {
				rows.Close()
				return out, fmt.Errorf("scan candidates: row %d: %w", row, err)
			}
			p := partOf(sampling.KeyHi(hash))
			out[p] = append(out[p], unkeyedCopy{sampling.Copy{Row: row, TS: ts, HasTS: hasTS, Stratum: stratum}, hash})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return out, fmt.Errorf("scan candidates: %w", err)
		}
	}
	return out, nil
}

// text is a driver's text value as a string.
func text(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case []byte:
		return string(v), true
	}
	return "", false
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
