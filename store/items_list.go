package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/goldtrace/goldtrace/trace"
)

// ItemFilter selects the items ItemList lists: those in sampled batches
// (not one still being written), narrowed by each field that is set.
type ItemFilter struct {
	Batch string
	// Statuses are item statuses (sampled, labeling, agreed, disputed,
	// adjudicated); none: every status.
	Statuses []string
	// Tool is the observed first tool ("(none)" for no call).
	Tool string
	// Reviewer lists that reviewer's assignments (one row per assignment,
	// with its status) instead of items; AssignStatuses then narrows them
	// (pending, draft, submitted, skipped).
	Reviewer       string
	AssignStatuses []string
	// Limit bounds the rows (0: no bound).
	Limit int
}

// ItemRow is one listed item: where it is, its state and how long it has
// been in it (UpdatedAt), what the production model called there, and the
// conversation's first user message.
type ItemRow struct {
	ID           string `json:"item"`
	Batch        string `json:"batch"` // batches joined by "," when several
	TraceID      string `json:"trace_id"`
	Turn         int    `json:"turn"`
	Status       string `json:"status,omitempty"`        // the item's status
	Assignment   string `json:"assignment,omitempty"`    // with ItemFilter.Reviewer: their assignment's status
	ObservedTool string `json:"observed_tool,omitempty"` // first observed tool, "(none)"
	UpdatedAt    string `json:"updated_at"`
	FirstUser    string `json:"first_user_message"`
}

// ItemList lists items (or, with f.Reviewer, one reviewer's assignments) in
// sample order, oldest batch first.
func (s *Store) ItemList(ctx context.Context, f ItemFilter) ([]ItemRow, error) {
	var q strings.Builder
	args := []any{f.Batch, f.Reviewer, f.Tool}
	if f.Reviewer != "" {
		q.WriteString(`SELECT i.id, a.batch, i.trace_id, i.turn, i.status, a.status, i.first_tool, a.updated_at
			FROM assignments a JOIN items i ON i.id = a.item_id
			WHERE a.reviewer = ?2 AND (?1 = '' OR a.batch = ?1) AND (?3 = '' OR i.first_tool = ?3)
			  AND a.batch NOT IN (SELECT name FROM batches WHERE state = 'writing')`)
		inList(&q, &args, "a.status", f.AssignStatuses)
		inList(&q, &args, "i.status", f.Statuses)
		q.WriteString(` ORDER BY a.batch, a.position`)
	} else {
		q.WriteString(`SELECT i.id, group_concat(DISTINCT a.batch), i.trace_id, i.turn, i.status, '', i.first_tool, i.updated_at
			FROM assignments a JOIN items i ON i.id = a.item_id
			WHERE (?1 = '' OR a.batch = ?1) AND ?2 = '' AND (?3 = '' OR i.first_tool = ?3)
			  AND a.batch NOT IN (SELECT name FROM batches WHERE state = 'writing')`)
		inList(&q, &args, "i.status", f.Statuses)
		q.WriteString(` GROUP BY i.id ORDER BY min(a.batch), min(a.position)`)
	}
	if f.Limit > 0 {
		fmt.Fprintf(&q, ` LIMIT %d`, f.Limit)
	}
	rows, err := s.r.QueryContext(ctx, q.String(), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []ItemRow
	for rows.Next() {
		var r ItemRow
		if err := rows.Scan(&r.ID, &r.Batch, &r.TraceID, &r.Turn, &r.Status, &r.Assignment, &r.ObservedTool, &r.UpdatedAt); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, s.fillFirstUser(ctx, out)
}

// inList adds "AND col IN (…)" for vals (nothing when there are none).
func inList(q *strings.Builder, args *[]any, col string, vals []string) {
	if len(vals) == 0 {
		return
	}
	fmt.Fprintf(q, " AND %s IN (", col)
	for i, v := range vals {
		if i > 0 {
			q.WriteString(", ")
		}
		*args = append(*args, v)
		fmt.Fprintf(q, "?%d", len(*args))
	}
	q.WriteString(")")
}

// fillFirstUser sets each row's first user message, reading each trace's
// messages once.
func (s *Store) fillFirstUser(ctx context.Context, rows []ItemRow) error {
	seen := map[string]string{}
	for i := range rows {
		id := rows[i].TraceID
		first, ok := seen[id]
		if !ok {
			var msgs, body []byte
			if err := s.r.QueryRowContext(ctx, `SELECT messages, body FROM traces WHERE id = ?`, id).Scan(&msgs, &body); err != nil {
				return fmt.Errorf("trace %s: %w", id, err)
			}
			data, err := s.traceMessagesJSON(ctx, msgs, body)
			if err != nil {
				return fmt.Errorf("trace %s: %w", id, err)
			}
			var messages []trace.Message
			if err := json.Unmarshal(data, &messages); err != nil {
				return fmt.Errorf("trace %s: messages: %w", id, err)
			}
			for _, m := range messages {
				if m.Role == trace.RoleUser {
					first = m.Content
					break
				}
			}
			seen[id] = first
		}
		rows[i].FirstUser = first
	}
	return nil
}
