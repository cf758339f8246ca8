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
// tool, then time: one query per tool and slice of its time span, so that
// the tool is a parameter rather than a column each row hands over (what
// a row costs is mostly its columns), and the index is written in time
// order as traces are imported. candidateReaders readers take the next
// slice not yet taken, each on a read connection of its own, and put each
// row with the others of its part of the input key's range. Then each
// part, all the copies of its inputs together, is gathered by a part of
// smp (sampling.Sampler.Part), two at a time, which keeps the earliest
// copy of each input; smp joins the parts at the end. The hash of a row
// without a key (input_hi and input_lo 0, see the input_keys migration)
// is read, and the row goes to the part of the key the sampler gives it.
func (s *Store) DrawCandidates(ctx context.Context, f CandidateFilter, smp *sampling.Sampler) error {
	scan, err := s.candidateScan(ctx, f)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The items in a batch are read beside the rows, which wait for them
	// before they are gathered.
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
	units, err := s.candidateUnits(ctx, scan)
	if err == nil {
		scan.perPart, err = s.rowsPerPart(ctx)
	}
	var read [candidateReaders]*candidateRead
	if err == nil {
		read, err = s.readUnits(ctx, scan, units)
	}
	var odd [candidateParts][]unkeyedCopy
	if err == nil {
		odd, err = s.unkeyedCandidates(ctx, read)
	}
	<-ready
	if err == nil {
		err = inBatchErr
	}
	if err != nil {
		return err
	}
	var next atomic.Int64
	var mu sync.Mutex
	errs := make([]error, candidateReaders)
	var wg sync.WaitGroup
	for w := range candidateReaders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var part *sampling.Sampler
			for ctx.Err() == nil {
				p := int(next.Add(1) - 1)
				if p >= candidateParts {
					break
				}
				if part == nil {
					part = smp.Part()
					part.Expect(scan.perPart)
				}
				if err := s.gatherPart(ctx, scan, part, read, p, skip, odd[p]); err != nil {
					errs[w] = err
					cancel()
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
	if err := firstError(errs); err != nil {
		return err
	}
	return ctx.Err()
}

// firstError is the first error that is not a cancellation, else the first.
func firstError(errs []error) error {
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
	return nil
}

// candidateParts is how many parts of the input key's range the rows are
// gathered in: several per reader, so that the readers share the work to
// the end, and each part's table stays small.
const candidateParts = 8

// candidateReaders is how many slices are read, and parts gathered, at
// once.
const candidateReaders = 2

// candidateSlices is how many slices of its time span each tool's rows
// are read in.
const candidateSlices = 8

// partOf is the part of the input key's range that a key whose first 64
// bits are hi falls in.
func partOf(hi uint64) int { return int(hi >> 61) }

// candidateUnit is one query of a scan: a tool's rows in a slice of time
// (from to through, both included), or its rows without a timestamp
// (untimed).
type candidateUnit struct {
	tool     int32
	untimed  bool
	from, to int64
}

// candidateUnits splits each tool's rows into slices of its time span
// (within --since and --until), found by a seek at each end of the tool's
// rows in the index, and its rows without a timestamp (none with --since
// or --until).
func (s *Store) candidateUnits(ctx context.Context, scan candidateScan) ([]candidateUnit, error) {
	var units []candidateUnit
	for t, tool := range scan.tools {
		var lo, hi sql.NullInt64
		q := `SELECT ts_unix FROM items INDEXED BY items_sampling WHERE first_tool = ? AND ts_unix IS NOT NULL ORDER BY ts_unix`
		if err := s.r.QueryRowContext(ctx, q+` LIMIT 1`, tool).Scan(&lo); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("scan candidates: %w", err)
		}
		if err := s.r.QueryRowContext(ctx, q+` DESC LIMIT 1`, tool).Scan(&hi); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("scan candidates: %w", err)
		}
		if scan.since.IsZero() && scan.until.IsZero() {
			units = append(units, candidateUnit{tool: int32(t), untimed: true})
		}
		if !lo.Valid || !hi.Valid {
			continue
		}
		from, to := lo.Int64, hi.Int64
		if !scan.since.IsZero() {
			from = max(from, scan.since.Unix())
		}
		if !scan.until.IsZero() {
			to = min(to, scan.until.Unix()-1)
		}
		if from > to {
			continue
		}
		span := uint64(to - from) // may not fit an int64
		for i := uint64(0); i < candidateSlices; i++ {
			a := from + int64(span/candidateSlices*i)
			b := from + int64(span/candidateSlices*(i+1)) - 1
			if i == candidateSlices-1 {
				b = to
			}
			if a <= b {
				units = append(units, candidateUnit{tool: int32(t), from: a, to: b})
			}
		}
	}
	return units, nil
}

// candidateRead is what one reader read: each part's rows, and the rows
// without a key.
type candidateRead struct {
	parts [candidateParts]candidateRows
	odd   candidateRows
}

// candidateRows are rows as read, before any is gathered: each row's
// input key, item row, timestamp and stratum.
type candidateRows struct {
	keys    [][2]uint64
	rows    []int64
	ts      []int64
	hasTS   []bool
	stratum []int32
}

func (b *candidateRows) add(hi, lo uint64, row, ts int64, hasTS bool, stratum int32) {
	b.keys = append(b.keys, [2]uint64{hi, lo})
	b.rows, b.ts, b.hasTS = append(b.rows, row), append(b.ts, ts), append(b.hasTS, hasTS)
	b.stratum = append(b.stratum, stratum)
}

func (b *candidateRows) grow(n int) {
	b.keys, b.rows, b.ts = make([][2]uint64, 0, n), make([]int64, 0, n), make([]int64, 0, n)
	b.hasTS, b.stratum = make([]bool, 0, n), make([]int32, 0, n)
}

// rowsPerPart is about how many rows a part holds when every item matches
// (the items spread evenly over the key range), within bounds: what the
// buffers and tables are sized for.
func (s *Store) rowsPerPart(ctx context.Context) (int, error) {
	n, err := s.ItemRowsBound(ctx)
	if err != nil {
		return 0, fmt.Errorf("scan candidates: %w", err)
	}
	return min(n/candidateParts*9/8+1024, 1<<20), nil
}

// readUnits reads the units, candidateReaders at a time, each reader
// taking the next unit not yet taken.
func (s *Store) readUnits(ctx context.Context, scan candidateScan, units []candidateUnit) ([candidateReaders]*candidateRead, error) {
	var read [candidateReaders]*candidateRead
	var next atomic.Int64
	errs := make([]error, candidateReaders)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for w := range candidateReaders {
		r := &candidateRead{}
		for p := range r.parts {
			r.parts[p].grow(scan.perPart / candidateReaders)
		}
		read[w] = r
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = s.bulkScan(ctx, func() error { return s.readUnitsOn(ctx, scan, units, &next, r) })
			if errs[w] != nil {
				cancel() // the other reader stops at its next row
			}
		}()
	}
	wg.Wait()
	return read, firstError(errs)
}

// readUnitsOn reads the next unit not yet taken into r until none is left,
// on one read connection. It reads through the driver's own rows, as
// database/sql would but without its locking and conversion for every
// value, with one statement for each kind of unit.
func (s *Store) readUnitsOn(ctx context.Context, scan candidateScan, units []candidateUnit, next *atomic.Int64, r *candidateRead) error {
	conn, err := s.r.Conn(ctx)
	if err != nil {
		return fmt.Errorf("scan candidates: %w", err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		pc, ok := dc.(driver.ConnPrepareContext)
		if !ok {
			return fmt.Errorf("the %T driver cannot prepare", dc)
		}
		var timed, untimed driver.StmtQueryContext
		for _, q := range []struct {
			text string
			stmt *driver.StmtQueryContext
		}{{scan.query, &timed}, {scan.untimed, &untimed}} {
			stmt, err := pc.PrepareContext(ctx, q.text)
			if err != nil {
				return err
			}
			defer stmt.Close()
			if *q.stmt, ok = stmt.(driver.StmtQueryContext); !ok {
				return fmt.Errorf("the %T driver cannot query", stmt)
			}
		}
		dest := make([]driver.Value, scan.columns)
		for {
			i := int(next.Add(1) - 1)
			if i >= len(units) || ctx.Err() != nil {
				return ctx.Err()
			}
			u := units[i]
			args := []driver.NamedValue{{Ordinal: 1, Value: scan.tools[u.tool]}}
			q := untimed
			if !u.untimed {
				q = timed
				args = append(args, driver.NamedValue{Ordinal: 2, Value: u.from}, driver.NamedValue{Ordinal: 3, Value: u.to})
			}
			for _, a := range scan.args {
				args = append(args, driver.NamedValue{Ordinal: len(args) + 1, Value: a})
			}
			if err := readUnitRows(ctx, q, args, dest, scan, u.tool, r); err != nil {
				return err
			}
		}
	})
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("scan candidates: %w", err)
	}
	return ctx.Err()
}

// readUnitRows puts the rows of one unit's query into r: (input_hi,
// input_lo, rowid, ts_unix) and, with --by meta.NAME, metaset.
func readUnitRows(ctx context.Context, q driver.StmtQueryContext, args []driver.NamedValue, dest []driver.Value, scan candidateScan, tool int32, r *candidateRead) error {
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
		ts, hasTS := dest[3].(int64)
		if !hasTS && dest[3] != nil {
			return fmt.Errorf("row %d: timestamp %v (%T): not a number", row, dest[3], dest[3])
		}
		stratum, err := scan.stratumOf(tool, dest)
		if err != nil {
			return fmt.Errorf("row %d: %w", row, err)
		}
		if hi == 0 && lo == 0 {
			r.odd.add(0, 0, row, ts, hasTS, stratum) // its hash is read later
			continue
		}
		r.parts[partOf(uint64(hi))].add(uint64(hi), uint64(lo), row, ts, hasTS, stratum)
	}
}

// gatherPart hands part the rows of part p that are in no batch (skip),
// with the rows of that part without a key (odd), and offers what it
// gathered, reading the trace id and turn of copies at the same time.
func (s *Store) gatherPart(ctx context.Context, scan candidateScan, part *sampling.Sampler, read [candidateReaders]*candidateRead, p int, skip *rowSet, odd []unkeyedCopy) error {
	for _, r := range read {
		b := &r.parts[p]
		for i, row := range b.rows {
			if !skip.has(row) {
				part.AddCopy(b.keys[i][0], b.keys[i][1], sampling.Copy{Row: row, TS: b.ts[i], HasTS: b.hasTS[i], Stratum: b.stratum[i]})
			}
		}
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

// unkeyedCandidates reads the input hash of the rows read without a key
// (no goldtrace writes such a hash), each put in the part of the key the
// sampler makes of its hash.
func (s *Store) unkeyedCandidates(ctx context.Context, read [candidateReaders]*candidateRead) ([candidateParts][]unkeyedCopy, error) {
	var out [candidateParts][]unkeyedCopy
	var rows []int64
	for _, r := range read {
		rows = append(rows, r.odd.rows...)
	}
	if len(rows) == 0 {
		return out, nil
	}
	hashes := make(map[int64]string, len(rows))
	err := queryIn(ctx, s.r, `SELECT rowid, input_hash FROM items WHERE rowid IN (`, rows, func(r *sql.Rows) error {
		var row int64
		var h string
		if err := r.Scan(&row, &h); err != nil {
			return err
		}
		hashes[row] = h
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("scan candidates: %w", err)
	}
	for _, r := range read {
		b := &r.odd
		for i, row := range b.rows {
			h, ok := hashes[row]
			if !ok {
				return out, fmt.Errorf("scan candidates: item row %d vanished while sampling", row)
			}
			p := partOf(sampling.KeyHi(h))
			out[p] = append(out[p], unkeyedCopy{sampling.Copy{Row: row, TS: b.ts[i], HasTS: b.hasTS[i], Stratum: b.stratum[i]}, h})
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
