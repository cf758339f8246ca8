package store

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// checkWorkers is how many steps of a check run at once: SQLite's
// integrity_check, the invariant queries, each exported version's content
// and the trace bodies share up to four cores (two on a machine of fewer),
// no more, as check also runs inside serve beside the sessions it serves.
var checkWorkers = max(2, min(4, runtime.GOMAXPROCS(0)))

// checkInvariants reads what goldtrace's own rules find (on both engines),
// and SQLite's foreign_key_check when foreignKeys, one findings per step,
// in the order check lists them. Its steps run on
// checkWorkers goroutines, each holding one of slots while it works; the
// first error, in that order, is the one returned.
func (s *Store) checkInvariants(ctx context.Context, slots chan struct{}, foreignKeys bool) ([]*findings, error) {
	versions, err := s.readyVersions(ctx)
	if err != nil {
		return nil, err
	}
	var queries []*findings
	datasets := make([][]string, len(versions))
	bodies := &findings{kind: "trace"}
	steps := make([]func() error, 0, 3+len(versions))
	if foreignKeys {
		// SQLite's foreign_key_check, listed first.
		fks := &findings{kind: "foreign_key"}
		queries = append(queries, fks)
		steps = append(steps, func() error { return s.wrap("check", foreignKeyProblems(ctx, s.r, fks)) })
	}
	steps = append(steps, func() error {
		found, err := s.invariantQueries(ctx)
		queries = append(queries, found...)
		return err
	})
	for i, v := range versions {
		steps = append(steps, func() error { datasets[i] = s.versionProblems(ctx, v); return nil })
	}
	steps = append(steps, func() error { return s.wrap("check", s.bodyProblems(ctx, bodies)) })
	errs := make([]error, len(steps))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range checkWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case slots <- struct{}{}:
				case <-ctx.Done():
					return
				}
				i := int(next.Add(1)) - 1
				if i < len(steps) {
					errs[i] = steps[i]()
				}
				<-slots
				if i >= len(steps) {
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		// Steps were skipped, or read with a cancelled context.
		return nil, s.wrap("check", err)
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	ds := &findings{kind: "dataset"}
	for _, lines := range datasets {
		for _, line := range lines {
			ds.add(line)
		}
	}
	return append(queries, ds, bodies), nil
}

// invariantQueries runs the invariants that are one query each.
func (s *Store) invariantQueries(ctx context.Context) ([]*findings, error) {
	var out []*findings
	step := func(kind string) *findings {
		f := &findings{kind: kind}
		out = append(out, f)
		return f
	}
	for _, inv := range invariants {
		if err := queryFindings(ctx, s.r, step(inv.kind), inv.query); err != nil {
			return nil, fmt.Errorf("check %s: %w", inv.kind, s.wrap("", err))
		}
	}
	for _, inv := range itemInvariants {
		if has, err := s.hasItemsColumn(ctx, inv.column); err != nil {
			return nil, s.wrap("check", err)
		} else if !has {
			continue
		}
		if err := queryFindings(ctx, s.r, step(inv.kind), inv.query); err != nil {
			return nil, fmt.Errorf("check %s: %w", inv.kind, s.wrap("", err))
		}
	}
	// A batch being written now is not a problem; one whose writer has
	// not been heard of for a minute was left by a killed sample.
	if err := queryFindings(ctx, s.r, step("batch"), `SELECT 'batch ' || name || ' was left half-written by a sample that did not finish (the next sample removes it)'
		FROM batches WHERE state = 'writing' AND heartbeat_at < ?`, s.heartbeat(s.Now().Add(-abandonedAfter))); err != nil {
		return nil, s.wrap("check", err)
	}
	if err := queryFindings(ctx, s.r, step("dataset"), `SELECT 'dataset ' || name || '@v' || version || ' was left half-written by an export that did not finish (the next export removes it)'
		FROM datasets WHERE state = 'staging' AND heartbeat_at < ?`, s.heartbeat(s.Now().Add(-abandonedAfter))); err != nil {
		return nil, s.wrap("check", err)
	}
	return out, nil
}

// itemInvariants are invariants that read a column of items added by a
// later migration (column): check does not upgrade the schema, and a store
// from before the column has nothing there to check.
var itemInvariants = []struct{ kind, query, column string }{
	// Sampling reads the items in a batch from in_batch (a column a label
	// does not write, unlike status): set exactly when status is not 'new'.
	{"batch", `SELECT 'item ' || i.id || ' is ' || i.status || ' but has in_batch ' || i.in_batch
		FROM items i WHERE i.in_batch != CASE WHEN i.status = 'new' THEN 0 ELSE 1 END`, "in_batch"},
}

// hasItemsColumn reports whether the items table has the column.
func (s *Store) hasItemsColumn(ctx context.Context, column string) (bool, error) {
	q := `SELECT count(*) FROM pragma_table_info('items') WHERE name = ?`
	if s.pg {
		q = `SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'items' AND column_name = ?`
	}
	var n int
	err := s.r.QueryRowContext(ctx, q, column).Scan(&n)
	return n > 0, err
}

// invariants are goldtrace's own rules, each a query returning one line per
// violation.
var invariants = []struct{ kind, query string }{
	{"label", `SELECT 'assignment ' || a.item_id || ' / ' || a.reviewer || ' is submitted but has no label'
		FROM assignments a LEFT JOIN labels l ON l.item_id = a.item_id AND l.reviewer = a.reviewer
		WHERE a.status = 'submitted' AND l.item_id IS NULL`},
	{"gold", `SELECT 'item ' || i.id || ' is ' || i.status || ' but has no gold answer'
		FROM items i LEFT JOIN gold g ON g.item_id = i.id
		WHERE i.status != 'new' AND i.status IN ('agreed', 'adjudicated') AND g.item_id IS NULL`},
	{"gold", `SELECT 'gold answer of ' || g.item_id || ' names reviewer ' || r.value || ', who has no label for it'
		FROM gold g CROSS JOIN json_each(g.reviewers) r
		LEFT JOIN labels l ON l.item_id = g.item_id AND l.reviewer = r.value
		WHERE l.item_id IS NULL`},
	{"gold", `SELECT 'gold answer of ' || g.item_id || ' has no source label'
		FROM gold g WHERE g.status = 'agreed' AND NOT EXISTS (SELECT 1 FROM labels l WHERE l.item_id = g.item_id)`},
	{"draft", `SELECT 'draft of ' || d.item_id || ' by ' || d.reviewer || ' is left on a ' || a.status || ' assignment'
		FROM drafts d JOIN assignments a ON a.item_id = d.item_id AND a.reviewer = d.reviewer
		WHERE a.status IN ('submitted', 'skipped')`},
	{"draft", `SELECT 'draft of ' || d.item_id || ' by ' || d.reviewer || ' has no assignment'
		FROM drafts d LEFT JOIN assignments a ON a.item_id = d.item_id AND a.reviewer = d.reviewer
		WHERE a.item_id IS NULL`},
	// An item leaves status 'new' exactly when a sample assigns it (status
	// counts a batch's items from items_status, sampling skips them by
	// it), and only one with labels can have gold.
	{"batch", `SELECT 'item ' || i.id || ' is ' || i.status || ' but assigned to no one'
		FROM items i WHERE i.status != 'new' AND NOT EXISTS (SELECT 1 FROM assignments a WHERE a.item_id = i.id)`},
	{"batch", `SELECT 'item ' || a.item_id || ' is new but assigned to ' || a.reviewer || ' in batch ' || a.batch
		FROM assignments a JOIN items i ON i.id = a.item_id WHERE i.status = 'new'`},
	{"gold", `SELECT 'gold answer of ' || g.item_id || ' is of an item no batch holds'
		FROM gold g JOIN items i ON i.id = g.item_id WHERE i.status = 'new'`},
	// Sampling and export filters read an item's metadata from its copy of
	// the trace's metaset.
	{"metadata", `SELECT 'item ' || i.id || ' has metaset ' || coalesce(CAST(i.metaset AS TEXT), 'none') || ', its trace ' || i.trace_id || ' has ' || coalesce(CAST(t.metaset AS TEXT), 'none')
		FROM items i JOIN traces t ON t.id = i.trace_id WHERE i.metaset IS DISTINCT FROM t.metaset`},
}
