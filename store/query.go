package store

import (
	"context"
	"database/sql"

	"github.com/goldtrace/goldtrace/internal/dbschema"
)

// The shapes of read query the store runs again and again.

// queryStrings runs a query of one text column and returns its values.
func queryStrings(ctx context.Context, q Queryer, query string, args ...any) ([]string, error) {
	return dbschema.Strings(ctx, q, query, args...)
}

// queryCounts runs a query of (text, count) rows and returns them as a map.
func queryCounts(ctx context.Context, q Queryer, query string, args ...any) (map[string]int, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			return nil, err
		}
		out[k] = n
	}
	return out, rows.Err()
}

// scanRows runs a read query and calls fn for each row.
func (s *Store) scanRows(ctx context.Context, fn func(scanner) error, query string, args ...any) error {
	return eachRow(ctx, s.r, query, args, func(r *sql.Rows) error { return fn(r) })
}

// eachRow runs query with q and calls fn for each row.
func eachRow(ctx context.Context, q Queryer, query string, args []any, fn func(*sql.Rows) error) error {
	rows, err := q.QueryContext(ctx, query, args...)
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
