package store

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/score"
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
	for _, k := range sortedMetaKeys(f.Meta) {
		vals := f.Meta[k]
		conds = append(conds, `EXISTS (SELECT 1 FROM trace_meta m WHERE m.trace_id = i.trace_id AND m.key = ? AND m.value IN (`+in(len(vals))+`))`)
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

func sortedMetaKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// GoldTraces loads the gold answers selected by f grouped by trace, each
// trace loaded once, in trace id order. Messages are handed over as their
// stored JSON (TraceGold.MessagesJSON) for the builders to decode. Three queries in all, whatever the
// number of items: gold rows, the traces they belong to, and tools.
func (s *Store) GoldTraces(ctx context.Context, f GoldFilter) ([]dataset.TraceGold, error) {
	return s.GoldTracesEach(ctx, f, nil)
}

// GoldTracesEach is GoldTraces that also hands each trace, complete, to
// ready (when not nil) as soon as it is loaded, in trace id order, so the
// caller can work on it while the rest loads. ready must not modify it.
func (s *Store) GoldTracesEach(ctx context.Context, f GoldFilter, ready func(dataset.TraceGold)) ([]dataset.TraceGold, error) {
	where, args := f.goldWhere()
	rows, err := s.r.QueryContext(ctx, `SELECT i.trace_id, i.id, i.turn, g.status, g.decision, g.calls, g.acceptable,
		g.rationale, g.reviewers, g.adjudicator, g.guide_version
		FROM gold g JOIN items i ON i.id = g.item_id`+where+` ORDER BY i.trace_id, i.turn`, args...)
	if err != nil {
		return nil, fmt.Errorf("read gold: %w", err)
	}
	var out []dataset.TraceGold
	tools := map[string]bool{}
	for _, t := range f.Tools {
		tools[t] = true
	}
	for rows.Next() {
		var traceID, calls, acceptable, reviewers string
		var a dataset.Answer
		if err := rows.Scan(&traceID, &a.ItemID, &a.Turn, &a.Status, &a.Decision, &calls, &acceptable,
			&a.Rationale, &reviewers, &a.Adjudicator, &a.GuideVersion); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read gold: %w", err)
		}
		if err := decodeGoldJSON(&a, calls, acceptable, reviewers); err != nil {
			rows.Close()
			return nil, err
		}
		if len(tools) > 0 && !tools[firstExpectedTool(a.Calls)] {
			continue
		}
		if n := len(out); n == 0 || out[n-1].Trace.ID != traceID {
			out = append(out, dataset.TraceGold{Trace: trace.Trace{ID: traceID}})
		}
		last := &out[len(out)-1]
		last.Answers = append(last.Answers, a)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read gold: %w", err)
	}
	if len(out) == 0 {
		return nil, nil
	}
	if err := s.fillGoldTraces(ctx, out, where, args, ready); err != nil {
		return nil, err
	}
	return out, nil
}

func firstExpectedTool(calls []score.ExpectedCall) string {
	if len(calls) == 0 {
		return trace.NoTool
	}
	return calls[0].Tool
}

func decodeGoldJSON(a *dataset.Answer, calls, acceptable, reviewers string) error {
	if err := json.Unmarshal([]byte(calls), &a.Calls); err != nil {
		return fmt.Errorf("gold of item %s: calls: %w", a.ItemID, err)
	}
	if acceptable != "[]" {
		if err := json.Unmarshal([]byte(acceptable), &a.Acceptable); err != nil {
			return fmt.Errorf("gold of item %s: acceptable: %w", a.ItemID, err)
		}
	}
	if err := json.Unmarshal([]byte(reviewers), &a.Reviewers); err != nil {
		return fmt.Errorf("gold of item %s: reviewers: %w", a.ItemID, err)
	}
	return nil
}

// fillGoldTraces loads the metadata, messages and tools of the traces in out
// (sorted by id) by walking one ordered query alongside them, handing each
// one filled to ready when it is not nil.
func (s *Store) fillGoldTraces(ctx context.Context, out []dataset.TraceGold, where string, args []any, ready func(dataset.TraceGold)) error {
	toolDefs, err := s.toolsByHash(ctx)
	if err != nil {
		return err
	}
	rows, err := s.r.QueryContext(ctx, `SELECT t.id, t.metadata, t.messages,
		(SELECT group_concat(tt.tool_hash, ',' ORDER BY tt.position) FROM trace_tools tt WHERE tt.trace_id = t.id)
		FROM traces t WHERE t.id IN (SELECT i.trace_id FROM gold g JOIN items i ON i.id = g.item_id`+where+`)
		ORDER BY t.id`, args...)
	if err != nil {
		return fmt.Errorf("read gold traces: %w", err)
	}
	defer rows.Close()
	k := 0
	for rows.Next() {
		var id, meta, msgs string
		var hashes *string
		if err := rows.Scan(&id, &meta, &msgs, &hashes); err != nil {
			return fmt.Errorf("read gold traces: %w", err)
		}
		for k < len(out) && out[k].Trace.ID < id {
			k++
		}
		if k == len(out) || out[k].Trace.ID != id {
			continue // a trace whose gold items the tool filter dropped
		}
		t := &out[k].Trace
		if err := json.Unmarshal([]byte(meta), &t.Metadata); err != nil {
			return fmt.Errorf("trace %q: metadata: %w", id, err)
		}
		out[k].MessagesJSON = []byte(msgs) // decoded by the builders, in parallel
		t.Tools = []trace.Tool{}
		if hashes != nil && *hashes != "" {
			for _, h := range strings.Split(*hashes, ",") {
				tool, ok := toolDefs[h]
				if !ok {
					return fmt.Errorf("trace %q: tool %s missing", id, h)
				}
				t.Tools = append(t.Tools, tool)
			}
		}
		if ready != nil {
			ready(out[k])
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read gold traces: %w", err)
	}
	for _, tg := range out {
		if tg.MessagesJSON == nil {
			return fmt.Errorf("trace %q of gold item %s: %w", tg.Trace.ID, tg.Answers[0].ItemID, ErrNotFound)
		}
	}
	return nil
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
