package store

import (
	"context"
	"time"
)

// Count is how many times one value occurs.
type Count struct {
	Value string `json:"value"`
	N     int    `json:"n"`
}

// MetaKeySummary describes one metadata key across the stored traces.
type MetaKeySummary struct {
	Key      string  `json:"key"`
	Traces   int     `json:"traces"`   // traces that have the key
	Distinct int     `json:"distinct"` // distinct values
	Top      []Count `json:"top"`      // the most frequent values
}

// TraceSummary is what `goldtrace traces` shows about the store.
type TraceSummary struct {
	Traces            int              `json:"traces"`
	Items             int              `json:"items"`
	ItemsWithCalls    int              `json:"items_with_calls"`
	ItemsWithoutCalls int              `json:"items_without_calls"`
	DistinctTools     int              `json:"distinct_tools"`
	FirstTools        []Count          `json:"items_by_first_tool"`
	Metadata          []MetaKeySummary `json:"metadata"`
	From              *time.Time       `json:"from,omitempty"` // earliest trace timestamp
	To                *time.Time       `json:"to,omitempty"`   // latest trace timestamp
}

// TraceSummary counts the stored traces and items; lists are cut to the
// top n values (all when n <= 0).
func (s *Store) TraceSummary(ctx context.Context, n int) (TraceSummary, error) {
	var sum TraceSummary
	q := s.r
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM traces`).Scan(&sum.Traces); err != nil {
		return sum, err
	}
	if err := q.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(n_calls > 0), 0) FROM items`).
		Scan(&sum.Items, &sum.ItemsWithCalls); err != nil {
		return sum, err
	}
	sum.ItemsWithoutCalls = sum.Items - sum.ItemsWithCalls
	if err := q.QueryRowContext(ctx, `SELECT count(DISTINCT t.name) FROM toolsets s JOIN json_each(s.hashes) j JOIN tools t ON t.hash = j.value
		WHERE s.id IN (SELECT toolset FROM traces)`).
		Scan(&sum.DistinctTools); err != nil {
		return sum, err
	}
	var err error
	if sum.FirstTools, err = s.counts(ctx, `SELECT first_tool, count(*) FROM items GROUP BY first_tool ORDER BY count(*) DESC, first_tool`, n); err != nil {
		return sum, err
	}
	rows, err := q.QueryContext(ctx, `SELECT key, count(*), count(DISTINCT value) FROM trace_meta GROUP BY key ORDER BY key`)
	if err != nil {
		return sum, err
	}
	for rows.Next() {
		var k MetaKeySummary
		if err := rows.Scan(&k.Key, &k.Traces, &k.Distinct); err != nil {
			rows.Close()
			return sum, err
		}
		sum.Metadata = append(sum.Metadata, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return sum, err
	}
	for i := range sum.Metadata {
		top, err := s.counts(ctx, `SELECT value, count(*) FROM trace_meta WHERE key = ? GROUP BY value ORDER BY count(*) DESC, value`, n, sum.Metadata[i].Key)
		if err != nil {
			return sum, err
		}
		sum.Metadata[i].Top = top
	}
	var from, to *int64
	if err := q.QueryRowContext(ctx, `SELECT min(ts_unix), max(ts_unix) FROM traces`).Scan(&from, &to); err != nil {
		return sum, err
	}
	if from != nil && to != nil {
		f, t := time.Unix(*from, 0).UTC(), time.Unix(*to, 0).UTC()
		sum.From, sum.To = &f, &t
	}
	if sum.FirstTools == nil {
		sum.FirstTools = []Count{}
	}
	if sum.Metadata == nil {
		sum.Metadata = []MetaKeySummary{}
	}
	return sum, nil
}

func (s *Store) counts(ctx context.Context, query string, n int, args ...any) ([]Count, error) {
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Count
	for rows.Next() {
		if n > 0 && len(out) == n {
			break
		}
		var c Count
		if err := rows.Scan(&c.Value, &c.N); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
