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
	if err := q.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(CASE WHEN n_calls > 0 THEN 1 ELSE 0 END), 0) FROM items`).
		Scan(&sum.Items, &sum.ItemsWithCalls); err != nil {
		return sum, err
	}
	sum.ItemsWithoutCalls = sum.Items - sum.ItemsWithCalls
	if err := q.QueryRowContext(ctx, `SELECT count(DISTINCT t.name) FROM toolsets s CROSS JOIN json_each(s.hashes) j JOIN tools t ON t.hash = j.value
		WHERE s.id IN (SELECT toolset FROM traces)`).
		Scan(&sum.DistinctTools); err != nil {
		return sum, err
	}
	var err error
	if sum.FirstTools, err = s.counts(ctx, `SELECT first_tool, count(*) FROM items GROUP BY first_tool ORDER BY count(*) DESC, first_tool`, n); err != nil {
		return sum, err
	}
	if sum.Metadata, err = s.metaSummary(ctx, n); err != nil {
		return sum, err
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

// metaSummary summarises each metadata key, its values cut to the top n.
// Traces are counted per metaset (an index scan), then each metaset's
// count is added to each of its pairs: the work grows with the distinct
// metadata objects, not with the traces, and only the top n values of
// each key leave SQLite.
func (s *Store) metaSummary(ctx context.Context, n int) ([]MetaKeySummary, error) {
	rows, err := s.r.QueryContext(ctx, `WITH used(metaset, n) AS MATERIALIZED
			(SELECT metaset, count(*) FROM traces WHERE metaset IS NOT NULL GROUP BY metaset),
		pairs(key, value, n) AS MATERIALIZED
			(SELECT j.key, j.value, sum(u.n) FROM used u JOIN metasets m ON m.id = u.metaset, json_each(m.json) j GROUP BY j.key, j.value),
		ranked AS (SELECT key, value, n,
			row_number() OVER (PARTITION BY key ORDER BY n DESC, value) AS rank,
			sum(n) OVER (PARTITION BY key) AS traces, count(*) OVER (PARTITION BY key) AS distinct_values
			FROM pairs)
		SELECT key, traces, distinct_values, value, n FROM ranked WHERE ?1 <= 0 OR rank <= ?1 ORDER BY key, rank`, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []MetaKeySummary
	for rows.Next() {
		var k MetaKeySummary
		var c Count
		if err := rows.Scan(&k.Key, &k.Traces, &k.Distinct, &c.Value, &c.N); err != nil {
			return nil, err
		}
		if len(out) == 0 || out[len(out)-1].Key != k.Key {
			out = append(out, k)
		}
		last := &out[len(out)-1]
		last.Top = append(last.Top, c)
	}
	return out, rows.Err()
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
