package store

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

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

func (t *itemTally) add(status string, gold bool) {
	switch status {
	case "agreed":
		t.agreed++
	case "disputed":
		t.disputed++
	case "adjudicated":
		t.adjudicated++
	default:
		t.open++
	}
	if gold {
		t.gold++
	}
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
}

type itemReviewer struct{ item, reviewer string }

func (s *Store) scanStatus(ctx context.Context, batch string, withLabels bool) (statusScan, error) {
	sc := statusScan{assignments: map[statusKey]int{}, items: map[string]*itemTally{}, seconds: map[statusKey]secondsHistogram{}}
	// 1. assignments: progress, and which batch each (item, reviewer) is in.
	batchOf := map[itemReviewer]string{}
	itemBatches := map[string][]string{}
	err := s.scanRows(ctx, func(r scanner) error {
		var ir itemReviewer
		var b, st string
		if err := r.Scan(&ir.item, &ir.reviewer, &b, &st); err != nil {
			return err
		}
		sc.assignments[statusKey{b, ir.reviewer, st}]++
		batchOf[ir] = b
		bs := itemBatches[ir.item]
		if len(bs) == 0 || bs[len(bs)-1] != b && !contains(bs, b) {
			itemBatches[ir.item] = append(bs, b)
		}
		return nil
	}, `SELECT item_id, reviewer, batch, status FROM assignments WHERE ?1 = '' OR batch = ?1`, batch)
	if err != nil {
		return sc, err
	}
	// 2. gold and item status, for the items in the selection.
	gold := map[string]bool{}
	if err := s.scanRows(ctx, func(r scanner) error {
		var id string
		if err := r.Scan(&id); err != nil {
			return err
		}
		gold[id] = true
		return nil
	}, `SELECT item_id FROM gold`); err != nil {
		return sc, err
	}
	tally := func(b string) *itemTally {
		t := sc.items[b]
		if t == nil {
			t = &itemTally{}
			sc.items[b] = t
		}
		return t
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
		tally("").add(st, gold[id])
		for _, b := range bs {
			tally(b).add(st, gold[id])
		}
		return nil
	}, `SELECT id, status FROM items WHERE status != 'new'`); err != nil {
		return sc, err
	}
	// 3. labels: seconds, and for leads the labels themselves, grouped by
	// item. Labels with byte-identical calls share one decoded slice.
	calls := "''"
	if withLabels {
		calls = "calls"
	}
	byItem := map[string]int{}
	decoded := map[string][]review.LabelCall{}
	hist := func(k statusKey) secondsHistogram {
		h := sc.seconds[k]
		if h == nil {
			h = secondsHistogram{}
			sc.seconds[k] = h
		}
		return h
	}
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
		hist(statusKey{batch: b, reviewer: l.Reviewer})[l.Seconds]++
		if !withLabels {
			return nil
		}
		cs, ok := decoded[raw]
		if !ok {
			if err := json.Unmarshal([]byte(raw), &cs); err != nil {
				return fmt.Errorf("label %s/%s: calls: %w", l.Item, l.Reviewer, err)
			}
			decoded[raw] = cs
		}
		l.Calls = cs
		i, ok := byItem[l.Item]
		if !ok {
			i = len(sc.labels)
			byItem[l.Item] = i
			sc.labels = append(sc.labels, nil)
			clear(decoded) // identical calls are shared within an item only
			decoded[raw] = cs
		}
		sc.labels[i] = append(sc.labels[i], l)
		return nil
	}, `SELECT item_id, reviewer, decision, seconds, `+calls+` FROM labels ORDER BY item_id`)
	if err != nil {
		return sc, err
	}
	// Roll the per-reviewer histograms up to per batch and overall.
	for k, h := range sc.seconds {
		if k.reviewer == "" {
			continue
		}
		for _, up := range []statusKey{{batch: k.batch}, {}} {
			for secs, n := range h {
				hist(up)[secs] += n
			}
		}
	}
	return sc, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// scanRows runs a read query and calls fn for each row.
func (s *Store) scanRows(ctx context.Context, fn func(scanner) error, query string, args ...any) error {
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
