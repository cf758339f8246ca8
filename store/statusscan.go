package store

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/goldtrace/goldtrace/review"
)

// Status reads each table it needs once, in plain scans, and joins them in
// Go maps: on 100k labels this is several times faster than SQL joins, which
// cost one index search per row in the pure-Go SQLite.

// statusKey identifies a counter: (batch, reviewer, status); zero fields
// mean "all".
type statusKey struct {
	batch, reviewer, status string
}

// secondsHistogram counts labels per number of seconds spent.
type secondsHistogram map[int]int

func (h secondsHistogram) median() *float64 {
	n := 0
	for _, c := range h {
		n += c
	}
	if n == 0 {
		return nil
	}
	keys := make([]int, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	at := func(i int) int { // the i-th smallest value (0-based)
		for _, k := range keys {
			if i < h[k] {
				return k
			}
			i -= h[k]
		}
		return keys[len(keys)-1]
	}
	m := float64(at(n / 2))
	if n%2 == 0 {
		m = float64(at(n/2-1)+at(n/2)) / 2
	}
	return &m
}

// itemTally counts items by outcome: agreed, disputed, adjudicated, open,
// and how many have gold.
type itemTally struct{ agreed, disputed, adjudicated, open, gold int }

func (t *itemTally) addN(status string, n, gold int) {
	switch status {
	case "agreed":
		t.agreed += n
	case "disputed":
		t.disputed += n
	case "adjudicated":
		t.adjudicated += n
	default:
		t.open += n
	}
	t.gold += gold
}

func (t itemTally) counts(lead bool) ItemCounts {
	c := ItemCounts{Items: t.agreed + t.disputed + t.adjudicated + t.open, Open: t.open, Settled: t.agreed + t.disputed + t.adjudicated}
	if lead {
		c.Agreed, c.Disputed, c.Adjudicated, c.Gold = &t.agreed, &t.disputed, &t.adjudicated, &t.gold
	}
	return c
}

// statusScan is what Status computes from.
type statusScan struct {
	assignments map[statusKey]int              // (batch, reviewer, status) → count
	items       map[string]*itemTally          // batch ("" = all) → items
	seconds     map[statusKey]secondsHistogram // (batch, reviewer) → seconds; zero key parts = all
	labels      [][]review.Label               // per item, leads only
	// halves are the labels read as two halves at once (scanStatusLabels),
	// joined into labels once both are read.
	halves *labelHalves
	// ready is the condition that leaves out the assignments of batches
	// still being written (" AND batch NOT IN …"), "" when there are none:
	// the scans then need no check at all.
	ready string
}

// whileWriting is the condition on assignments.batch that leaves out
// batches still being written, which no queue shows either.
const whileWriting = ` AND batch NOT IN (SELECT name FROM batches WHERE state = 'writing')`

type itemReviewer struct{ item, reviewer string }

// bulkScan runs fn, a scan of a whole table, once fewer than scanConns
// scans hold read connections.
func (s *Store) bulkScan(ctx context.Context, fn func() error) error {
	select {
	case s.scans <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-s.scans }()
	return fn()
}

func (s *Store) scanStatus(ctx context.Context, batch string, withLabels bool) (statusScan, error) {
	sc := statusScan{assignments: map[statusKey]int{}, items: map[string]*itemTally{}, seconds: map[statusKey]secondsHistogram{}}
	var names []string
	if err := s.scanRows(ctx, func(r scanner) error {
		var n string
		names = append(names, n)
		return r.Scan(&names[len(names)-1])
	}, `SELECT name FROM batches WHERE state = 'ready' ORDER BY name LIMIT 2`); err != nil {
		return sc, err
	}
	var writing bool
	if err := s.r.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM batches WHERE state = 'writing')`).Scan(&writing); err != nil {
		return sc, err
	}
	if writing {
		sc.ready = whileWriting
	}
	// The scans are independent: run them at once on the read pool.
	var wg sync.WaitGroup
	errs := make([]error, 5)
	run := func(i int, fn func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.bulkScan(ctx, fn)
		}()
	}
	run(0, func() error {
		return s.scanRows(ctx, func(r scanner) error {
			var k statusKey
			var n int
			if err := r.Scan(&k.batch, &k.reviewer, &k.status, &n); err != nil {
				return err
			}
			sc.assignments[k] += n
			return nil
		}, `SELECT batch, reviewer, status, count(*) FROM assignments WHERE (?1 = '' OR batch = ?1)`+sc.ready+` GROUP BY batch, reviewer, status`, batch)
	})
	if len(names) == 1 {
		s.scanOneBatch(ctx, &sc, names[0], withLabels, run)
	} else if len(names) > 1 {
		run(1, func() error { return s.scanBatches(ctx, &sc, batch, withLabels) })
	}
	wg.Wait()
	// The first failure: scans that fail together (the server gone) fail
	// alike, and the status says it once.
	for _, err := range errs {
		if err != nil {
			return sc, err
		}
	}
	if sc.halves != nil {
		sc.halves.join(&sc, names[0])
	}
	// Roll the per-reviewer histograms up to per batch and overall.
	var keys []statusKey
	for k := range sc.seconds {
		keys = append(keys, k)
	}
	for _, k := range keys {
		for _, up := range []statusKey{{batch: k.batch}, {}} {
			for secs, n := range sc.seconds[k] {
				sc.hist(up)[secs] += n
			}
		}
	}
	return sc, nil
}

func (sc *statusScan) hist(k statusKey) secondsHistogram {
	h := sc.seconds[k]
	if h == nil {
		h = secondsHistogram{}
		sc.seconds[k] = h
	}
	return h
}

func (sc *statusScan) tally(b string) *itemTally {
	t := sc.items[b]
	if t == nil {
		t = &itemTally{}
		sc.items[b] = t
	}
	return t
}

// scanOneBatch is the common case, a project with a single batch: every
// assignment and label is in it, so SQLite aggregates and no (item,
// reviewer) → batch map is needed. It starts its scans with run.
func (s *Store) scanOneBatch(ctx context.Context, sc *statusScan, b string, withLabels bool, run func(int, func() error)) {
	if withLabels {
		// First: the longest scan, which the others overlap. It counts
		// the labels' seconds too.
		if err := s.scanStatusLabels(ctx, sc, run); err != nil {
			run(3, func() error { return err })
			return
		}
		run(1, func() error { return s.scanOneBatchItems(ctx, sc, b) })
		return
	}
	run(1, func() error { return s.scanOneBatchItems(ctx, sc, b) })
	run(2, func() error {
		return s.scanRows(ctx, func(r scanner) error {
			var reviewer string
			var secs, n int
			if err := r.Scan(&reviewer, &secs, &n); err != nil {
				return err
			}
			sc.hist(statusKey{batch: b, reviewer: reviewer})[secs] += n
			return nil
		}, `SELECT reviewer, seconds, count(*) FROM labels GROUP BY reviewer, seconds`)
	})
}

// labelHalves are the labels read as two halves by rowid at once.
type labelHalves [2]labelGrouper

// scanStatusLabels starts, with run, two scans of the labels at once: the
// rows up to the middle rowid, and the rest, on another read connection
// (and core). They read into sc.halves, which scanStatus joins once both
// are done (neither waits for the other while holding its connection).
// Each also counts the labels' seconds per reviewer.
func (s *Store) scanStatusLabels(ctx context.Context, sc *statusScan, run func(int, func() error)) error {
	var lo, hi int64
	if err := s.r.QueryRowContext(ctx, `SELECT (SELECT coalesce(min(rowid), 0) FROM labels), (SELECT coalesce(max(rowid), 0) FROM labels)`).Scan(&lo, &hi); err != nil {
		return err
	}
	mid := lo + (hi-lo)/2
	sc.halves = &labelHalves{}
	for i, where := range []string{`rowid <= ?`, `rowid > ?`} {
		g := &sc.halves[i]
		// Most items have two labels, which are mostly in the same half.
		g.expect(int(min(hi-lo+1, 1<<22) / 4))
		run(3+i, func() error {
			var row sql.RawBytes
			dest := []any{&row} // built once: Scan(&row) would allocate it per row
			return s.scanRows(ctx, func(r scanner) error {
				if err := r.Scan(dest...); err != nil {
					return err
				}
				return g.addTimedRow(row)
			}, `SELECT `+timedLabelRow+` FROM labels WHERE `+where+` ORDER BY rowid`, mid)
		})
	}
	return nil
}

// join sets sc.labels to the labels of both halves grouped per item as one
// scan in rowid order would have grouped them: an item's labels in the
// second half follow its labels in the first, and the items first seen in
// the second half follow the first half's, in order. The bootstrap draws
// items by their place in that order, so the same labels always give the
// same intervals. The seconds go to the reviewers' histograms of batch b
// (the only one).
func (h *labelHalves) join(sc *statusScan, b string) {
	sc.labels = h[0].join(&h[1])
	for _, g := range h {
		for reviewer, secs := range g.seconds {
			into := sc.hist(statusKey{batch: b, reviewer: reviewer})
			for n, c := range secs {
				into[n] += c
			}
		}
	}
}

// join appends h's items, read from later rows, to g's: an item g holds
// gets h's labels after its own; the others follow in h's order. The
// halves are two reads, so a label taken back and submitted again between
// them (a new row, past the middle) can be in both: h's, the later, takes
// the place of g's, whose seconds g no longer counts.
func (g *labelGrouper) join(h *labelGrouper) [][]review.Label {
	for _, ls := range h.items {
		i, ok := g.index[ls[0].Item]
		if !ok {
			g.items = append(g.items, ls)
			continue
		}
	next:
		for _, l := range ls {
			for k, had := range g.items[i] {
				if had.Reviewer == l.Reviewer {
					if secs := g.seconds[had.Reviewer]; secs != nil {
						secs[had.Seconds]--
					}
					g.items[i][k] = l
					continue next
				}
			}
			g.items[i] = append(g.items[i], l)
		}
	}
	return g.items
}

// scanOneBatchItems counts the items of batch b by status, and those with
// gold, from three scans in index order matched in Go, none of which looks
// a row up: the batch's item ids (the assignments' key, each once), the
// items that are not new (items_status) and the gold items (gold's key).
// Joining them in SQL looked each item up in the items table, whose rows
// are in import order: a page read per item unless the page cache held the
// table, and this SQLite build shares one page-cache budget among all
// connections (SQLITE_ENABLE_MEMORY_MANAGEMENT), so the scans running
// beside it evicted even a small index's pages — 100k page reads for a
// lead's status on 50k items, 12k now. Items no batch drew, most of a
// large store, are new and never read.
func (s *Store) scanOneBatchItems(ctx context.Context, sc *statusScan, b string) error {
	if sc.ready == "" {
		t, ok, err := s.countOneBatchItems(ctx)
		if err != nil {
			return err
		}
		if ok {
			for _, name := range []string{"", b} {
				*sc.tally(name) = t
			}
			return nil
		}
	}
	inBatch := map[string]struct{}{}
	var id sql.RawBytes
	dest := []any{&id} // built once: Scan(&id) would allocate it per row
	if err := s.scanRows(ctx, func(r scanner) error {
		if err := r.Scan(dest...); err != nil {
			return err
		}
		inBatch[string(id)] = struct{}{}
		return nil
	}, `SELECT DISTINCT item_id FROM assignments WHERE 1 = 1`+sc.ready); err != nil {
		return err
	}
	var t itemTally
	var st string
	dest = []any{&id, &st}
	if err := s.scanRows(ctx, func(r scanner) error {
		if err := r.Scan(dest...); err != nil {
			return err
		}
		if _, ok := inBatch[string(id)]; ok {
			t.addN(st, 1, 0)
		}
		return nil
	}, `SELECT id, status FROM items WHERE status != 'new'`); err != nil {
		return err
	}
	gold := 0
	dest = []any{&id}
	if err := s.scanRows(ctx, func(r scanner) error {
		if err := r.Scan(dest...); err != nil {
			return err
		}
		if _, ok := inBatch[string(id)]; ok {
			gold++
		}
		return nil
	}, `SELECT item_id FROM gold`); err != nil {
		return err
	}
	notNew := t.agreed + t.disputed + t.adjudicated + t.open
	t.addN("new", len(inBatch)-notNew, gold) // the rest are new; gold is counted once
	for _, name := range []string{"", b} {
		*sc.tally(name) = t
	}
	return nil
}

// countOneBatchItems counts the items of a project's one batch, with no
// batch being written, by status and those with gold, reading no item id:
// an item has left status 'new' exactly when it is assigned (the sample
// that assigns it moves it in the same transaction, and only removing a
// batch still being written moves it back; check verifies both), so the
// batch's items are the items_status index's, counted by status in
// SQLite, and every gold item is one of them (gold needs labels). ok is
// false when the number of assigned items (the assignments' key, read in
// order and never looked up) is not the number of items that left 'new':
// a store written behind goldtrace's back, which scanOneBatchItems then
// counts item by item.
func (s *Store) countOneBatchItems(ctx context.Context) (itemTally, bool, error) {
	var t itemTally
	err := s.scanRows(ctx, func(r scanner) error {
		var st string
		var n int
		if err := r.Scan(&st, &n); err != nil {
			return err
		}
		t.addN(st, n, 0)
		return nil
	}, `SELECT status, count(*) FROM items WHERE status != 'new' GROUP BY status`)
	if err != nil {
		return t, false, err
	}
	var assigned int
	if err := s.r.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM (SELECT DISTINCT item_id FROM assignments) a), (SELECT count(*) FROM gold)`).
		Scan(&assigned, &t.gold); err != nil {
		return t, false, err
	}
	return t, assigned == t.agreed+t.disputed+t.adjudicated+t.open, nil
}

// scanBatches handles several batches: one scan of the assignments maps
// each (item, reviewer) to its batch, then items and labels are attributed
// in Go.
func (s *Store) scanBatches(ctx context.Context, sc *statusScan, batch string, withLabels bool) error {
	batchOf := map[itemReviewer]string{}
	itemBatches := map[string][]string{}
	err := s.scanRows(ctx, func(r scanner) error {
		var ir itemReviewer
		var b string
		if err := r.Scan(&ir.item, &ir.reviewer, &b); err != nil {
			return err
		}
		batchOf[ir] = b
		if bs := itemBatches[ir.item]; !slices.Contains(bs, b) {
			itemBatches[ir.item] = append(bs, b)
		}
		return nil
	}, `SELECT item_id, reviewer, batch FROM assignments WHERE (?1 = '' OR batch = ?1)`+sc.ready, batch)
	if err != nil {
		return err
	}
	// Gold's key and items_status are read in index order and matched in
	// Go, not joined: a join looks gold up per item (see
	// scanOneBatchItems).
	gold := map[string]bool{}
	if err := s.scanRows(ctx, func(r scanner) error {
		var id string
		if err := r.Scan(&id); err != nil {
			return err
		}
		if _, ok := itemBatches[id]; ok {
			gold[id] = true
		}
		return nil
	}, `SELECT item_id FROM gold`); err != nil {
		return err
	}
	if err := s.scanRows(ctx, func(r scanner) error {
		var id, st string
		if err := r.Scan(&id, &st); err != nil {
			return err
		}
		bs, ok := itemBatches[id]
		if !ok {
			return nil
		}
		g := boolInt(gold[id])
		sc.tally("").addN(st, 1, g)
		for _, b := range bs {
			sc.tally(b).addN(st, 1, g)
		}
		return nil
	}, `SELECT id, status FROM items WHERE status != 'new'`); err != nil {
		return err
	}
	calls := "''"
	if withLabels {
		calls = "calls"
	}
	var g labelGrouper
	err = s.scanRows(ctx, func(r scanner) error {
		var l review.Label
		var raw string
		if err := r.Scan(&l.Item, &l.Reviewer, &l.Decision, &l.Seconds, &raw); err != nil {
			return err
		}
		b, ok := batchOf[itemReviewer{l.Item, l.Reviewer}]
		if !ok {
			return nil // not in the selected batch
		}
		sc.hist(statusKey{batch: b, reviewer: l.Reviewer})[l.Seconds]++
		if !withLabels {
			return nil
		}
		return g.add(l, raw)
	}, `SELECT item_id, reviewer, decision, seconds, `+calls+` FROM labels`)
	sc.labels = g.items
	return err
}

// labelRow selects a label's item, decision, reviewer and calls as one text
// joined by the unit separator (0x1f): the driver allocates per column, so
// one column instead of four makes the lead's status markedly cheaper. Item
// ids and decisions never contain 0x1f, and JSON text never holds it raw, so
// the last separator splits the reviewer (any name) from the calls.
const labelRow = `item_id || char(31) || decision || char(31) || reviewer || char(31) || calls`

// addRow adds a label selected as labelRow.
func (g *labelGrouper) addRow(row []byte) error {
	item, rest, ok1 := bytes.Cut(row, []byte{0x1f})
	decision, rest, ok2 := bytes.Cut(rest, []byte{0x1f})
	last := bytes.LastIndexByte(rest, 0x1f)
	if !ok1 || !ok2 || last < 0 {
		return fmt.Errorf("label row %q: malformed", row)
	}
	return g.addRaw(item, rest[:last], decision, rest[last+1:], 0)
}

// timedLabelRow is labelRow with the label's seconds after its decision
// (a lead's status counts them from the same scan).
const timedLabelRow = `item_id || char(31) || decision || char(31) || seconds || char(31) || reviewer || char(31) || calls`

// addTimedRow adds a label selected as timedLabelRow, and counts its
// seconds in its reviewer's histogram.
func (g *labelGrouper) addTimedRow(row []byte) error {
	item, rest, ok1 := bytes.Cut(row, []byte{0x1f})
	decision, rest, ok2 := bytes.Cut(rest, []byte{0x1f})
	digits, rest, ok3 := bytes.Cut(rest, []byte{0x1f})
	last := bytes.LastIndexByte(rest, 0x1f)
	secs, ok4 := atoi(digits)
	if !ok1 || !ok2 || !ok3 || !ok4 || last < 0 {
		return fmt.Errorf("label row %q: malformed", row)
	}
	reviewer := g.intern(rest[:last])
	h := g.seconds[reviewer]
	if h == nil {
		if g.seconds == nil {
			g.seconds = map[string]secondsHistogram{}
		}
		h = secondsHistogram{}
		g.seconds[reviewer] = h
	}
	h[secs]++
	return g.addRaw(item, rest[:last], decision, rest[last+1:], secs)
}

// atoi parses a decimal integer (an optional minus, then digits) without
// allocating.
func atoi(b []byte) (int, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// addRaw adds a label scanned into reusable buffers, allocating strings only
// for what it has not seen: an item id once per item, reviewer and decision
// names once per scan, calls text once per distinct calls of an item.
func (g *labelGrouper) addRaw(item, reviewer, decision, raw []byte, seconds int) error {
	l := review.Label{Reviewer: g.intern(reviewer), Decision: g.intern(decision), Seconds: seconds}
	i, ok := g.index[string(item)]
	if ok {
		l.Item = g.items[i][0].Item
	} else {
		l.Item = string(item)
		i = g.newItem(l.Item)
	}
	return g.addAt(i, l, raw)
}

// labelGrouper collects labels into one slice per item, decoding their
// calls; labels of an item with byte-identical calls share one decoded slice.
type labelGrouper struct {
	items [][]review.Label
	raws  [][][]byte // per item, the calls text of each label
	index map[string]int
	names map[string]string
	// labelBlock and rawBlock are unused room for the next items' slices.
	labelBlock []review.Label
	rawBlock   [][]byte
	text       []byte // unused room for calls text (keep)
	// seconds counts the labels per reviewer and seconds (addTimedRow).
	seconds map[string]secondsHistogram
}

// intern returns b as a string, allocating it only the first time.
func (g *labelGrouper) intern(b []byte) string {
	if s, ok := g.names[string(b)]; ok {
		return s
	}
	if g.names == nil {
		g.names = map[string]string{}
	}
	s := string(b)
	g.names[s] = s
	return s
}

// expectLabelItems makes room in g for the items of every label. The
// largest rowid bounds the number of labels (O(log n) to read): sizing the
// per-item lists and the index up front saves growing them (and rehashing
// the index) as 100k labels stream in.
func (s *Store) expectLabelItems(ctx context.Context, g *labelGrouper) error {
	var maxRowid int
	if err := s.r.QueryRowContext(ctx, `SELECT coalesce(max(rowid), 0) FROM labels`).Scan(&maxRowid); err != nil {
		return err
	}
	g.expect(min(maxRowid, 1<<22) / 2) // most items have two labels
	return nil
}

// expect makes room for about n items.
func (g *labelGrouper) expect(n int) {
	g.items = make([][]review.Label, 0, n)
	g.raws = make([][][]byte, 0, n)
	g.index = make(map[string]int, n)
}

// add adds a label whose calls are raw.
func (g *labelGrouper) add(l review.Label, raw string) error {
	i, ok := g.index[l.Item]
	if !ok {
		i = g.newItem(l.Item)
	}
	return g.addAt(i, l, []byte(raw))
}

// newItem starts the (empty) label list of item and returns its index.
func (g *labelGrouper) newItem(item string) int {
	if g.index == nil {
		g.index = map[string]int{}
	}
	i := len(g.items)
	g.index[item] = i
	// Most items have two labels: carve their slices out of shared blocks
	// instead of allocating two small slices per item.
	if len(g.labelBlock) < 2 {
		g.labelBlock = make([]review.Label, 2048)
		g.rawBlock = make([][]byte, 2048)
	}
	g.items = append(g.items, g.labelBlock[:0:2])
	g.raws = append(g.raws, g.rawBlock[:0:2])
	g.labelBlock, g.rawBlock = g.labelBlock[2:], g.rawBlock[2:]
	return i
}

// keep copies raw into the grouper's text blocks (one allocation per 64 KiB
// rather than one per label).
func (g *labelGrouper) keep(raw []byte) []byte {
	if len(raw) > cap(g.text)-len(g.text) {
		g.text = make([]byte, 0, max(64<<10, len(raw)))
	}
	start := len(g.text)
	g.text = append(g.text, raw...)
	return g.text[start:len(g.text):len(g.text)]
}

// addAt adds label l of item i with calls raw (which it copies when it keeps
// it, so raw may be a reused buffer).
func (g *labelGrouper) addAt(i int, l review.Label, raw []byte) error {
	for k, r := range g.raws[i] {
		if bytes.Equal(r, raw) {
			l.Calls = g.items[i][k].Calls
			raw = r
			break
		}
	}
	if l.Calls == nil {
		raw = g.keep(raw)
		calls, err := decodeLabelCalls(raw, g.intern)
		if err != nil {
			return fmt.Errorf("label %s/%s: calls: %w", l.Item, l.Reviewer, err)
		}
		l.Calls = calls
	}
	g.items[i] = append(g.items[i], l)
	g.raws[i] = append(g.raws[i], raw)
	return nil
}
