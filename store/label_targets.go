package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"

	"github.com/goldtrace/goldtrace/trace"
)

// LabelTarget is what checking a label for an item needs: whether the item
// exists, its status, the tools offered there and its assignments (reviewer
// → status; an assignment in a batch still being written is left out, as
// Assignment leaves it out).
type LabelTarget struct {
	Found       bool
	Status      string
	Tools       []trace.Tool
	Assignments map[string]string
}

// targetBefore is what groupBefore and groupDrafts read of an item under
// the write lock, read instead with no lock by a labels import's checks or
// just ahead of its writer (readBefores), and the stamp of that read
// (labelFreshness).
type targetBefore struct {
	stamp         *targetStamp
	found         bool
	rowid         int64 // the item's
	toolset       int64 // the item's tool set (LabelTarget's tools; 0: none)
	status        string
	adjudications int64
	exports       int
	// assigns are all of the item's assignments (those of batches being
	// written included, as groupBefore reads them).
	assigns []assignBefore
	drafts  map[string]*savedRow // by reviewer; nil: none
}

// assignBefore is one assignment as groupBefore reads it.
type assignBefore struct {
	row                          int64 // rowid
	reviewer, status, skipReason string
	writing                      bool // its batch is being written
}

// assign is the item's assignment to reviewer.
func (b *targetBefore) assign(reviewer string) (assignBefore, bool) {
	for _, a := range b.assigns {
		if a.reviewer == reviewer {
			return a, true
		}
	}
	return assignBefore{}, false
}

// targetStamp is a read's labelFreshness stamp, shared by its targets,
// and the names its targets keep (each once: a name read again is given
// as kept, so many items' befores hold one copy).
type targetStamp struct {
	epoch uint64
	names map[string]string
}

// name is s as kept.
func (t *targetStamp) name(s string) string {
	if k, ok := t.names[s]; ok {
		return k
	}
	t.names[s] = s
	return s
}

// labelTargetsPerQuery is how many items one lookup asks for: a round of
// labels import's checks (2,000 labels, of 1,000 items when each has two)
// in one query of each kind, one round trip each on PostgreSQL.
const labelTargetsPerQuery = 1000

// LabelTargets looks up many items at once for checking labels (two
// queries per 1,000 items, and the tools of each distinct tool set once),
// instead of ItemTools and Assignment per label. Every id asked for is in
// the answer, with Found false when there is no such item.
func (s *Store) LabelTargets(ctx context.Context, itemIDs []string) (map[string]LabelTarget, error) {
	return s.LabelTargetsWith(ctx, itemIDs, ToolsetTools{})
}

// ToolsetTools are the tools of the tool sets LabelTargetsWith has read,
// by tool set: a tool set never changes once stored, so a caller that
// looks up many rounds of items (labels import) reads each one once.
type ToolsetTools map[int64][]trace.Tool

// LabelTargetsWith is LabelTargets reading only the tool sets tools does
// not hold yet, and adding them to it.
func (s *Store) LabelTargetsWith(ctx context.Context, itemIDs []string, tools ToolsetTools) (map[string]LabelTarget, error) {
	s.analyzeOnce.Do(func() { s.db.Analyze(ctx, labelTables...) })
	out, toolsets, err := labelTargets(ctx, s.r, itemIDs)
	if err != nil {
		return nil, err
	}
	return out, withTools(ctx, s.r, out, toolsets, tools)
}

// labelTargets reads the items' status and assignments, and the tool set
// of each item found (0: none): the item's own when it was put back
// against a newer catalogue, else its trace's.
func labelTargets(ctx context.Context, q Queryer, itemIDs []string) (map[string]LabelTarget, map[string]int64, error) {
	out := make(map[string]LabelTarget, len(itemIDs))
	toolsets := map[string]int64{}
	var ids []any
	for _, id := range itemIDs {
		if _, ok := out[id]; !ok {
			out[id] = LabelTarget{}
			ids = append(ids, id)
		}
	}
	for start := 0; start < len(ids); start += labelTargetsPerQuery {
		chunk := ids[start:min(start+labelTargetsPerQuery, len(ids))]
		in := "(?" + strings.Repeat(", ?", len(chunk)-1) + ")"
		err := eachRow(ctx, q, `SELECT i.id, i.status, `+itemToolset+` FROM items i WHERE i.id IN `+in, chunk, func(rows *sql.Rows) error {
			var id string
			lt := LabelTarget{Found: true, Assignments: map[string]string{}}
			var set int64
			if err := rows.Scan(&id, &lt.Status, &set); err != nil {
				return err
			}
			out[id], toolsets[id] = lt, set
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
		err = eachRow(ctx, q, `SELECT item_id, reviewer, status FROM assignments WHERE item_id IN `+in+`
			AND batch NOT IN (SELECT name FROM batches WHERE state = 'writing')`, chunk, func(rows *sql.Rows) error {
			var id, reviewer, status string
			if err := rows.Scan(&id, &reviewer, &status); err != nil {
				return err
			}
			if lt := out[id]; lt.Found {
				lt.Assignments[reviewer] = status
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return out, toolsets, nil
}

// itemToolset is the tool set of the item i (0: none): its own when it
// was put back against a newer catalogue, else its trace's, looked up by
// its key (a join had PostgreSQL hash the whole traces table for every 500
// items, 200 ms each).
const itemToolset = `coalesce(i.toolset, (SELECT t.toolset FROM traces t WHERE t.id = i.trace_id), 0)`

// withTools gives each target of out the tools of its tool set (toolsets,
// by item), reading those tools does not hold yet and adding them to it.
func withTools(ctx context.Context, q Queryer, out map[string]LabelTarget, toolsets map[string]int64, tools ToolsetTools) error {
	if _, ok := tools[0]; !ok {
		tools[0] = []trace.Tool{}
	}
	for id, set := range toolsets {
		t, ok := tools[set]
		if !ok {
			var err error
			if t, err = toolsetTools(ctx, q, set); err != nil {
				return err
			}
			tools[set] = t
		}
		lt := out[id]
		lt.Tools = t
		out[id] = lt
	}
	return nil
}

// toolsetTools loads the tools of one tool set, in order.
func toolsetTools(ctx context.Context, q Queryer, set int64) ([]trace.Tool, error) {
	out := []trace.Tool{}
	err := eachRow(ctx, q, `SELECT t.name, t.description, t.parameters FROM toolsets s CROSS JOIN json_each(s.hashes) j
		JOIN tools t ON t.hash = j.value WHERE s.id = ? ORDER BY CAST(j.key AS INTEGER)`, []any{set}, func(rows *sql.Rows) error {
		var r trace.Tool
		var params string
		if err := rows.Scan(&r.Name, &r.Description, &params); err != nil {
			return err
		}
		if params != "" {
			r.Parameters = json.RawMessage(params)
		}
		out = append(out, r)
		return nil
	})
	return out, err
}

// readBefores reads the items' befores (every id gets one; an item not
// found, one with nothing in it) at stamp, loaded before: the items'
// rowid, status and lead acts, all their assignments (those of batches being
// written too) with their skip reasons, and their drafts, a few queries
// for up to labelTargetsPerQuery items.
func readBefores(ctx context.Context, q Queryer, itemIDs []string, stamp *targetStamp) (map[string]*targetBefore, error) {
	out := make(map[string]*targetBefore, len(itemIDs))
	var ids []any
	for _, id := range itemIDs {
		if _, ok := out[id]; !ok {
			out[id] = &targetBefore{stamp: stamp}
			ids = append(ids, id)
		}
	}
	for start := 0; start < len(ids); start += labelTargetsPerQuery {
		chunk := ids[start:min(start+labelTargetsPerQuery, len(ids))]
		in := placeholderList(len(chunk))
		err := eachRow(ctx, q, `SELECT i.id, i.rowid, i.status, `+itemToolset+`, `+leadActs("i.id")+` FROM items i WHERE i.id IN `+in, chunk, func(rows *sql.Rows) error {
			var id, status string
			b := &targetBefore{stamp: stamp, found: true, assigns: make([]assignBefore, 0, 2)}
			if err := rows.Scan(&id, &b.rowid, &status, &b.toolset, &b.adjudications, &b.exports); err != nil {
				return err
			}
			b.status = stamp.name(status)
			out[id] = b
			return nil
		})
		if err != nil {
			return nil, err
		}
		err = eachRow(ctx, q, `SELECT rowid, item_id, reviewer, status, skip_reason, batch IN (SELECT name FROM batches WHERE state = 'writing')
			FROM assignments WHERE item_id IN `+in, chunk, func(rows *sql.Rows) error {
			var id string
			var a assignBefore
			if err := rows.Scan(&a.row, &id, &a.reviewer, &a.status, &a.skipReason, &a.writing); err != nil {
				return err
			}
			if b := out[id]; b.found {
				a.reviewer, a.status, a.skipReason = stamp.name(a.reviewer), stamp.name(a.status), stamp.name(a.skipReason)
				b.assigns = append(b.assigns, a)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		err = eachSaved(ctx, q, `SELECT * FROM drafts WHERE item_id IN `+in, chunk, func(k [2]string, r savedRow) {
			if b := out[k[0]]; b.found {
				if b.drafts == nil {
					b.drafts = map[string]*savedRow{}
				}
				b.drafts[k[1]] = &r
			}
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
