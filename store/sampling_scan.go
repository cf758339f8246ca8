package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"io"
	"math"
	"sync"
	"time"
)

// ScanCandidates calls fn with the row, input hash and stratum of every
// item matching f, in the order that decides duplicates (sampling.Earlier):
// items with a timestamp by (timestamp, trace id, turn), then items without
// one by (trace id, turn). It reads one covering index and nothing else; the
// hash bytes are valid only during the call. CandidatesByRow fills in the
// rest for the few rows kept.
//
// Reading the rows is most of a sample's time, so it runs beside fn: the
// timestamped items are read in two parts (before and from two thirds of
// their time span) on two read connections at once, each on a goroutine of
// its own, while fn runs on the caller's goroutine over the rows read so
// far, the first part's and then the second's, held until fn gets to them.
// fn sees every row, in order, from one goroutine.
func (s *Store) ScanCandidates(ctx context.Context, f CandidateFilter, fn func(row int64, inputHash []byte, stratum string) error) error {
	return s.ScanCandidateRuns(ctx, f, func(c *CandidateRun) error {
		for i := range c.Len() {
			if err := fn(c.Row(i)); err != nil {
				return err
			}
		}
		return nil
	})
}

// ScanCandidateRuns is ScanCandidates handing fn the rows a run at a time
// (up to a few thousand, valid during the call): a sampler can then look
// ahead within a run (sampling.Sampler.OfferRows).
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
	// Two lanes: the first part alone; the second, then the items without
	// a timestamp.
	lanes := [][]candidatePart{parts[:1], parts[1:]}
	if len(parts) == 2 {
		lanes = [][]candidatePart{parts}
	}
	return s.scanLanes(ctx, lanes, fn)
}

type candidatePart struct {
	query string
	args  []any
}

// candidateSpans splits f's timestamped items at two thirds of their time
// span (within f's --since/--until): f itself when the span is one second.
// The later part is held until fn gets to it, so it is the smaller: on two
// cores the sample takes no longer for it (fn keeps one of them busy).
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
	mid := time.Unix(lo.Int64+(hi.Int64-lo.Int64)/3*2+1, 0)
	early, late := f, f
	early.Until, late.Since = mid, mid
	return []CandidateFilter{early, late}, nil
}

// scanLanes reads each lane's parts in order on a goroutine of its own and
// calls fn with the rows of every lane in turn, from this goroutine. The
// first lane's reader waits for fn when it is ahead; the others read on,
// holding their rows (about 80 bytes each, up to candidateHeldRuns runs)
// until fn gets to them.
func (s *Store) scanLanes(ctx context.Context, lanes [][]candidatePart, fn func(*CandidateRun) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var free candidateRuns
	outs := make([]chan *CandidateRun, len(lanes))
	errs := make([]error, len(lanes))
	var wg sync.WaitGroup
	for i, parts := range lanes {
		held := 4 // runs ahead of fn
		if i > 0 {
			held = candidateHeldRuns
		}
		out := make(chan *CandidateRun, held)
		outs[i] = out
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(out)
			errs[i] = s.bulkScan(ctx, func() error {
				for _, p := range parts {
					if err := s.readCandidates(ctx, p, out, &free); err != nil {
						return err
					}
				}
				return nil
			})
		}()
	}
	var err error
	for _, out := range outs {
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
	}
	wg.Wait()
	if err != nil {
		return err
	}
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return ctx.Err()
}

// candidateHeldRuns bounds the runs a lane other than the first holds:
// 512k rows, about 40 MB (a reader that gets that far waits for fn).
const candidateHeldRuns = 256

// CandidateRun is up to candidateRunRows rows of a candidate scan, held
// in about 80 bytes a row: the hashes end to end in one buffer, each
// stratum as its place in the reader's list of names.
type CandidateRun struct {
	rows   []int64
	ends   []int32 // hashes[ends[i-1]:ends[i]] is row i's input hash
	hashes []byte
	strata []uint16
	names  []string // the reader's strata when the run was sent
}

const candidateRunRows = 2048

// Len is how many rows the run holds.
func (c *CandidateRun) Len() int { return len(c.rows) }

// Row is the run's row i: the item's row, its input hash and its stratum.
func (c *CandidateRun) Row(i int) (row int64, inputHash []byte, stratum string) {
	start := 0
	if i > 0 {
		start = int(c.ends[i-1])
	}
	end := int(c.ends[i])
	return c.rows[i], c.hashes[start:end:end], c.names[c.strata[i]]
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
		c.rows, c.ends, c.hashes, c.strata = c.rows[:0], c.ends[:0], c.hashes[:0], c.strata[:0]
		return c
	}
	const n = candidateRunRows
	return &CandidateRun{rows: make([]int64, 0, n), ends: make([]int32, 0, n), hashes: make([]byte, 0, 64*n), strata: make([]uint16, 0, n)}
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
		return readCandidateRows(ctx, rows, out, free)
	})
	if err != nil && ctx.Err() == nil {
		return fmt.Errorf("scan candidates: %w", err)
	}
	return ctx.Err()
}

// readCandidateRows is readCandidates' loop over the driver's rows of
// (row, input hash, stratum).
func readCandidateRows(ctx context.Context, rows driver.Rows, out chan<- *CandidateRun, free *candidateRuns) error {
	dest := make([]driver.Value, 3)
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
		if c == nil {
			c = free.get()
		}
		row, ok := dest[0].(int64)
		if !ok {
			return fmt.Errorf("row number %v (%T)", dest[0], dest[0])
		}
		hash, ok1 := text(dest[1])
		stratum, ok2 := text(dest[2])
		if !ok1 || !ok2 {
			return fmt.Errorf("input hash %v (%T), stratum %v (%T): not text", dest[1], dest[1], dest[2], dest[2])
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
		c.hashes = append(c.hashes, hash...)
		c.rows = append(c.rows, row)
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
