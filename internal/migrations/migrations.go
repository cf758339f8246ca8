// Package migrations reads a schema's numbered migration files
// (NNNN_what.sql), for every store engine's migrations runner.
package migrations

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

// Migration is one numbered file of a schema's migrations.
type Migration struct {
	Version int
	Name    string
	SQL     string
	// Notice is what a user whose database this migration upgrades is
	// told before it runs: one of its lines reads "-- migrate: notice:
	// NOTICE" (a migration that rewrites every row of a large table).
	Notice string
}

// noticeLine starts the line of a migration that holds its Notice.
const noticeLine = "-- migrate: notice: "

// Load reads the NNNN_what.sql files at the root of fsys in order of
// number (none when fsys is nil). A file named otherwise, or two files of
// one number (the second would count as applied once the first is, and
// never run), is an error.
func Load(fsys fs.FS) ([]Migration, error) {
	if fsys == nil {
		return nil, nil
	}
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, name := range names {
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: name must be NNNN_what.sql", name)
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		m := Migration{Version: v, Name: name, SQL: string(body)}
		for _, line := range strings.Split(m.SQL, "\n") {
			if notice, ok := strings.CutPrefix(line, noticeLine); ok {
				m.Notice = strings.TrimSpace(notice)
			}
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i := 1; i < len(out); i++ {
		if out[i].Version == out[i-1].Version {
			return nil, fmt.Errorf("migrations %s and %s have the same number", out[i-1].Name, out[i].Name)
		}
	}
	return out, nil
}

// Querier is a database, connection or transaction to read from.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Recorded reads schema_migrations (which must exist): each applied
// migration's name by number.
func Recorded(ctx context.Context, q Querier) (map[int]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT version, name FROM schema_migrations`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int]string{}
	for rows.Next() {
		var v int
		var name string
		if err := rows.Scan(&v, &name); err != nil {
			return nil, err
		}
		out[v] = name
	}
	return out, rows.Err()
}

// Pending is the migrations of ms not in recorded, in order. A recorded
// one this goldtrace knows by another name (a development build's), or
// does not know (a newer goldtrace's), is an error naming database db.
func Pending(ms []Migration, recorded map[int]string, db string) ([]Migration, error) {
	known := map[int]bool{}
	var out []Migration
	for _, m := range ms {
		known[m.Version] = true
		if name, ok := recorded[m.Version]; !ok {
			out = append(out, m)
		} else if name != m.Name {
			return nil, fmt.Errorf("database %s records schema migration %04d as %s, but this goldtrace's is %s: it was made by a development build whose schema differs; re-create it",
				db, m.Version, name, m.Name)
		}
	}
	newest := 0
	for v := range recorded {
		if !known[v] && v > newest {
			newest = v
		}
	}
	if newest > 0 {
		have := 0
		if len(ms) > 0 {
			have = ms[len(ms)-1].Version
		}
		return nil, fmt.Errorf("database %s has schema migration %04d, which this goldtrace (schema %04d) does not know: it was written by a newer goldtrace",
			db, newest, have)
	}
	return out, nil
}
