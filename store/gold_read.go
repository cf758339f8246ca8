package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// GoldFilter selects gold items for an export. Within one field values are
// alternatives (OR); fields combine with AND. The zero value selects all.
type GoldFilter struct {
	Batches  []string            // items sampled into any of these batches
	Meta     map[string][]string // trace metadata key → accepted values
	Statuses []string            // agreed, adjudicated
	Tools    []string            // expected first tool, trace.NoTool for no call
}

// goldWhere builds the WHERE clause (over gold g JOIN items i) of f.
func (f GoldFilter) goldWhere() (string, []any) {
	var conds []string
	var args []any
	in := func(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }
	if len(f.Batches) > 0 {
		conds = append(conds, `i.id IN (SELECT item_id FROM batch_items WHERE batch IN (`+in(len(f.Batches))+`))`)
		for _, b := range f.Batches {
			args = append(args, b)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(f.Meta)) {
		vals := f.Meta[k]
		conds = append(conds, `i.metaset IN (SELECT metaset FROM (`+sqlMetasetsWith+`) ms WHERE value IN (`+in(len(vals))+`))`)
		args = append(args, k)
		for _, v := range vals {
			args = append(args, v)
		}
	}
	if len(f.Statuses) > 0 {
		conds = append(conds, `g.status IN (`+in(len(f.Statuses))+`)`)
		for _, s := range f.Statuses {
			args = append(args, s)
		}
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// GoldTraces loads the gold answers selected by f grouped by trace, each
// trace loaded once, in trace id order. Messages and metadata are handed
// over as their stored JSON (TraceGold.MessagesJSON and MetadataJSON) for
// the builders to decode, and the tools with their stored hashes as
// ToolsKey. Three queries in all, whatever the number of items: gold rows,
// the traces they belong to, and tools.
func (s *Store) GoldTraces(ctx context.Context, f GoldFilter) ([]dataset.TraceGold, error) {
	var out []dataset.TraceGold
	err := s.GoldTracesEach(ctx, f, func(tg dataset.TraceGold) { out = append(out, tg) })
	slices.SortFunc(out, func(a, b dataset.TraceGold) int { return strings.Compare(a.Trace.ID, b.Trace.ID) })
	return out, err
}

// GoldTracesEach is GoldTraces handing each trace, complete, to ready as
// soon as it is loaded (in no particular order), so the caller can work on
// it while the rest loads (and nothing keeps the traces it is done with).
// ready must not modify it.
//
// The gold table drives both reads: first its rows (each item looked up by
// its key), then the traces they name, looked up by key. Walking the items
// or traces instead would cost a step per stored item however few are gold.
func (s *Store) GoldTracesEach(ctx context.Context, f GoldFilter, ready func(dataset.TraceGold)) error {
	where, args := f.goldWhere()
	toolDefs, err := s.toolsByHash(ctx)
	if err != nil {
		return err
	}
	groups, err := s.readGoldAnswers(ctx, f, where, args, toolDefs)
	if err != nil || len(groups) == 0 {
		return err
	}
	return s.readGoldTraces(ctx, groups, toolDefs, ready)
}

// readGoldAnswers reads the gold answers selected by f, grouped by trace
// (Trace.ID set, nothing else of it), each group's answers in turn order.
func (s *Store) readGoldAnswers(ctx context.Context, f GoldFilter, where string, args []any,
	toolDefs map[string]trace.Tool) (map[string]*dataset.TraceGold, error) {
	// CROSS JOIN keeps gold the outer loop: SQLite would otherwise walk
	// every item and probe gold for each.
	rows, err := s.r.QueryContext(ctx, `SELECT `+goldRowSQL+`, coalesce(i.toolset, 0)
		FROM gold g CROSS JOIN items i ON i.id = g.item_id`+where, args...)
	if err != nil {
		return nil, fmt.Errorf("read gold: %w", err)
	}
	defer rows.Close()
	tools := map[string]bool{}
	for _, t := range f.Tools {
		tools[t] = true
	}
	dec := goldDecoder{names: map[string]string{}, lists: map[string][]string{}}
	var row sql.RawBytes
	var toolset int64
	dest := []any{&row, &toolset} // built once: Scan(&row) would allocate it per row
	groups := map[string]*dataset.TraceGold{}
	overrides := map[int64]itemCatalogue{}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("read gold: %w", err)
		}
		traceID, a, err := dec.answer(row)
		if err != nil {
			return nil, err
		}
		if len(tools) > 0 && !tools[firstExpectedTool(a.Calls)] {
			continue
		}
		if toolset != 0 {
			c, ok := overrides[toolset]
			if !ok {
				if c, err = s.itemCatalogue(ctx, toolset, toolDefs); err != nil {
					return nil, fmt.Errorf("gold of item %s: %w", a.ItemID, err)
				}
				overrides[toolset] = c
			}
			a.Tools, a.ToolsKey = c.tools, c.key
		}
		g, ok := groups[string(traceID)]
		if !ok {
			g = &dataset.TraceGold{Trace: trace.Trace{ID: string(traceID)}}
			groups[g.Trace.ID] = g
		}
		g.Answers = append(g.Answers, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read gold: %w", err)
	}
	for _, g := range groups {
		slices.SortFunc(g.Answers, func(a, b dataset.Answer) int { return a.Turn - b.Turn })
	}
	return groups, nil
}

// goldRowSQL selects a gold answer as one text: each field as its length in
// bytes, a colon and its bytes, so any text splits back exactly. The
// driver allocates per column: one column instead of eleven makes reading
// 100k answers markedly cheaper.
var goldRowSQL = func() string {
	var parts []string
	for _, col := range []string{"i.trace_id", "i.id", "i.turn", "g.status", "g.decision", "g.calls", "g.acceptable",
		"g.rationale", "g.reviewers", "g.adjudicator", "g.guide_version"} {
		parts = append(parts, "length(CAST("+col+" AS BLOB)) || ':' || "+col)
	}
	return strings.Join(parts, " || ")
}()

// goldDecoder decodes gold rows selected as goldRowSQL, allocating the names
// and reviewer lists that repeat from row to row only once.
type goldDecoder struct {
	names map[string]string
	lists map[string][]string
}

func (d *goldDecoder) intern(b []byte) string {
	if s, ok := d.names[string(b)]; ok {
		return s
	}
	s := string(b)
	d.names[s] = s
	return s
}

// answer decodes one row; traceID is only valid until the next row.
func (d *goldDecoder) answer(row []byte) (traceID []byte, a dataset.Answer, err error) {
	var f [11][]byte
	rest := row
	for i := range f {
		n, after, ok := bytes.Cut(rest, []byte{':'})
		size, convErr := strconv.Atoi(string(n))
		if !ok || convErr != nil || size < 0 || size > len(after) {
			return nil, a, fmt.Errorf("read gold: malformed row %.80q", row)
		}
		f[i], rest = after[:size], after[size:]
	}
	a.ItemID = string(f[1])
	if a.Turn, err = strconv.Atoi(string(f[2])); err != nil {
		return nil, a, fmt.Errorf("gold of item %s: turn %q", a.ItemID, f[2])
	}
	a.Status, a.Decision = d.intern(f[3]), d.intern(f[4])
	a.Rationale = string(f[7])
	a.Adjudicator, a.GuideVersion = d.intern(f[9]), d.intern(f[10])
	if err := json.Unmarshal(f[5], &a.Calls); err != nil {
		return nil, a, fmt.Errorf("gold of item %s: calls: %w", a.ItemID, err)
	}
	if string(f[6]) != "[]" {
		if err := json.Unmarshal(f[6], &a.Acceptable); err != nil {
			return nil, a, fmt.Errorf("gold of item %s: acceptable: %w", a.ItemID, err)
		}
	}
	// Most answers share their reviewers: one decoded list each (read
	// only, like every Answer field).
	if list, ok := d.lists[string(f[8])]; ok {
		a.Reviewers = list
	} else {
		if err := json.Unmarshal(f[8], &a.Reviewers); err != nil {
			return nil, a, fmt.Errorf("gold of item %s: reviewers: %w", a.ItemID, err)
		}
		if len(d.lists) < 1024 {
			d.lists[string(f[8])] = a.Reviewers
		}
	}
	return f[0], a, nil
}

// itemCatalogue is a tool set an item was put back against: its tools and
// its key (the tools' hashes, as readGoldTraces keys a trace's).
type itemCatalogue struct {
	tools []trace.Tool
	key   string
}

// itemCatalogue loads tool set id, its tools from toolDefs.
func (s *Store) itemCatalogue(ctx context.Context, id int64, toolDefs map[string]trace.Tool) (itemCatalogue, error) {
	var list string
	if err := s.r.QueryRowContext(ctx, `SELECT hashes FROM toolsets WHERE id = ?`, id).Scan(&list); err != nil {
		return itemCatalogue{}, fmt.Errorf("tool set %d: %w", id, err)
	}
	var hashes []string
	if err := json.Unmarshal([]byte(list), &hashes); err != nil {
		return itemCatalogue{}, fmt.Errorf("tool set %d: %w", id, err)
	}
	c := itemCatalogue{tools: make([]trace.Tool, len(hashes)), key: strings.Join(hashes, ",")}
	for i, h := range hashes {
		t, ok := toolDefs[h]
		if !ok {
			return itemCatalogue{}, fmt.Errorf("tool set %d: tool %s missing", id, h)
		}
		c.tools[i] = t
	}
	return c, nil
}

func firstExpectedTool(calls []gold.ExpectedCall) string {
	if len(calls) == 0 {
		return trace.NoTool
	}
	return calls[0].Tool
}

// readGoldTraces completes each group with its trace's metadata, messages
// and tools and hands it to ready, reading the traces by key in id order
// (the ids go in as one JSON array). A trace's tool set and metadata are
// read as their ids: the few distinct ones are loaded once each, shared by
// the traces that have them.
func (s *Store) readGoldTraces(ctx context.Context, groups map[string]*dataset.TraceGold, toolDefs map[string]trace.Tool,
	ready func(dataset.TraceGold)) error {
	ids := slices.Sorted(maps.Keys(groups))
	list, err := json.Marshal(ids)
	if err != nil {
		return err
	}
	rows, err := s.r.QueryContext(ctx, `SELECT t.id, t.metaset, t.messages, t.body, t.toolset
		FROM json_each(?) j CROSS JOIN traces t ON t.id = j.value`, string(list))
	if err != nil {
		return fmt.Errorf("read gold traces: %w", err)
	}
	defer rows.Close()
	catalogues := map[int64]itemCatalogue{}
	metadata := map[int64][]byte{}
	for rows.Next() {
		var id string
		var msgs, body []byte // scanned as bytes: one copy, handed over as they are
		var metaset, toolset sql.NullInt64
		if err := rows.Scan(&id, &metaset, &msgs, &body, &toolset); err != nil {
			return fmt.Errorf("read gold traces: %w", err)
		}
		if msgs, err = s.traceMessagesJSON(ctx, msgs, body); err != nil {
			return fmt.Errorf("trace %q: %w", id, err)
		}
		cur, ok := groups[id]
		if !ok {
			continue // already handed over (json_each gave the id twice)
		}
		delete(groups, id)
		t := &cur.Trace
		// Decoded (when at all) by the builders, in parallel.
		cur.MessagesJSON = msgs
		if cur.MetadataJSON, err = s.metasetJSON(ctx, metaset, metadata); err != nil {
			return fmt.Errorf("trace %q: %w", id, err)
		}
		t.Tools = []trace.Tool{}
		if toolset.Valid {
			c, ok := catalogues[toolset.Int64]
			if !ok {
				if c, err = s.itemCatalogue(ctx, toolset.Int64, toolDefs); err != nil {
					return fmt.Errorf("trace %q: %w", id, err)
				}
				catalogues[toolset.Int64] = c
			}
			if c.key != "" {
				cur.ToolsKey = c.key
				t.Tools = slices.Clone(c.tools)
			}
		}
		ready(*cur)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read gold traces: %w", err)
	}
	for _, id := range ids {
		if g, ok := groups[id]; ok {
			return missingGoldTrace(*g)
		}
	}
	return nil
}

// metasetJSON is the metadata of metaset id as the store keeps it ({} for
// none), loaded once into seen.
func (s *Store) metasetJSON(ctx context.Context, id sql.NullInt64, seen map[int64][]byte) ([]byte, error) {
	if !id.Valid {
		return []byte(`{}`), nil
	}
	if b, ok := seen[id.Int64]; ok {
		return b, nil
	}
	b := []byte(`{}`)
	err := s.r.QueryRowContext(ctx, `SELECT json FROM metasets WHERE id = ?`, id.Int64).Scan(&b)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("metadata %d: %w", id.Int64, err)
	}
	seen[id.Int64] = b
	return b, nil
}

func missingGoldTrace(tg dataset.TraceGold) error {
	return fmt.Errorf("trace %q of gold item %s: %w", tg.Trace.ID, tg.Answers[0].ItemID, ErrNotFound)
}

// toolsByHash loads every stored tool definition (they are deduplicated, so
// there are few).
func (s *Store) toolsByHash(ctx context.Context) (map[string]trace.Tool, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT hash, name, description, parameters FROM tools`)
	if err != nil {
		return nil, fmt.Errorf("read tools: %w", err)
	}
	defer rows.Close()
	out := map[string]trace.Tool{}
	for rows.Next() {
		var h, params string
		var tool trace.Tool
		if err := rows.Scan(&h, &tool.Name, &tool.Description, &params); err != nil {
			return nil, fmt.Errorf("read tools: %w", err)
		}
		if params != "" {
			tool.Parameters = json.RawMessage(params)
		}
		out[h] = tool
	}
	return out, rows.Err()
}
