// Package dbschema describes a database's tables as an engine reads them
// from its own catalogue (SQLite's pragmas, PostgreSQL's information
// schema), for work that must cover every table without a list of its own:
// goldtrace copy moves a project between engines with it.
package dbschema

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
)

// Kind is how a column's values are typed, in terms both engines share.
type Kind int

const (
	Text Kind = iota
	Integer
	Real
	Blob
	Any // SQLite's untyped column
)

// Column is one column of a table.
type Column struct {
	Name string
	Kind Kind
	// Generated columns are numbered by the database (PostgreSQL's rowid
	// columns): never written.
	Generated bool
	// Identity columns are numbered by the database unless written (an
	// INTEGER PRIMARY KEY, an identity BY DEFAULT): after rows are written
	// with their numbers, the next number must follow the highest.
	Identity bool
}

// Table is one table: its columns in order, the tables its foreign keys
// refer to, and the ORDER BY that lists its rows in the order they were
// written (rowid) or by primary key.
type Table struct {
	Name    string
	Columns []Column
	Parents []string
	OrderBy string
}

// Column returns the named column.
func (t Table) Column(name string) (Column, bool) {
	for _, c := range t.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return Column{}, false
}

// InOrder sorts tables so that every table comes after the tables its
// foreign keys refer to (by name where that leaves a choice); a cycle
// (other than a table referring to itself) is an error.
func InOrder(tables []Table) ([]Table, error) {
	byName := map[string]Table{}
	for _, t := range tables {
		byName[t.Name] = t
	}
	names := make([]string, 0, len(tables))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Table
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(n string, path []string) error
	visit = func(n string, path []string) error {
		switch state[n] {
		case 2:
			return nil
		case 1:
			return fmt.Errorf("tables refer to each other in a cycle: %v", append(path, n))
		}
		t, ok := byName[n]
		if !ok {
			return fmt.Errorf("table %s refers to table %s, which the schema does not have", path[len(path)-1], n)
		}
		state[n] = 1
		parents := append([]string{}, t.Parents...)
		sort.Strings(parents)
		for _, p := range parents {
			if p == n {
				continue
			}
			if err := visit(p, append(path, n)); err != nil {
				return err
			}
		}
		state[n] = 2
		out = append(out, t)
		return nil
	}
	for _, n := range names {
		if err := visit(n, nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Strings runs a query of one text column on db and returns its values.
func Strings(ctx context.Context, db *sql.DB, query string, args ...any) ([]string, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
