package sqlite

import (
	"context"
	"sort"
	"strings"

	"github.com/goldtrace/goldtrace/internal/dbschema"
)

// bookkeeping are the engine's own tables (migrations applied, the last
// quick check): not the project's.
var bookkeeping = map[string]bool{"schema_migrations": true, "store_state": true}

// Tables describes the project's tables (the engine's bookkeeping left
// out) from SQLite's catalogue.
func (d *DB) Tables(ctx context.Context) ([]dbschema.Table, error) {
	names, err := d.strings(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY name`)
	if err != nil {
		return nil, d.wrap("read the schema", err)
	}
	var out []dbschema.Table
	for _, name := range names {
		if bookkeeping[name] {
			continue
		}
		t, err := d.table(ctx, name)
		if err != nil {
			return nil, d.wrap("read the schema of table "+name, err)
		}
		out = append(out, t)
	}
	return out, nil
}

func (d *DB) table(ctx context.Context, name string) (dbschema.Table, error) {
	t := dbschema.Table{Name: name}
	rows, err := d.r.QueryContext(ctx, `SELECT name, upper(type), pk FROM pragma_table_info(?) ORDER BY cid`, name)
	if err != nil {
		return t, err
	}
	type pkCol struct {
		name string
		n    int
	}
	var pk []pkCol
	for rows.Next() {
		var c dbschema.Column
		var typ string
		var n int
		if err := rows.Scan(&c.Name, &typ, &n); err != nil {
			rows.Close()
			return t, err
		}
		switch {
		case strings.Contains(typ, "INT"):
			c.Kind = dbschema.Integer
		case strings.Contains(typ, "TEXT") || strings.Contains(typ, "CHAR"):
			c.Kind = dbschema.Text
		case strings.Contains(typ, "BLOB"):
			c.Kind = dbschema.Blob
		case strings.Contains(typ, "REAL") || strings.Contains(typ, "FLOA") || strings.Contains(typ, "DOUB"):
			c.Kind = dbschema.Real
		default:
			c.Kind = dbschema.Any
		}
		if n > 0 {
			pk = append(pk, pkCol{c.Name, n})
		}
		t.Columns = append(t.Columns, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return t, err
	}
	sort.Slice(pk, func(i, j int) bool { return pk[i].n < pk[j].n })
	var withoutRowid bool
	if err := d.r.QueryRowContext(ctx, `SELECT wr FROM pragma_table_list WHERE name = ? AND schema = 'main'`, name).Scan(&withoutRowid); err != nil {
		return t, err
	}
	if withoutRowid {
		cols := make([]string, len(pk))
		for i, c := range pk {
			cols[i] = c.name
		}
		t.OrderBy = strings.Join(cols, ", ")
	} else {
		t.OrderBy = "rowid"
		if len(pk) == 1 {
			for i := range t.Columns {
				if t.Columns[i].Name == pk[0].name && t.Columns[i].Kind == dbschema.Integer {
					t.Columns[i].Identity = true // the rowid itself
				}
			}
		}
	}
	if t.Parents, err = d.strings(ctx, `SELECT DISTINCT "table" FROM pragma_foreign_key_list(?)`, name); err != nil {
		return t, err
	}
	return t, nil
}

func (d *DB) strings(ctx context.Context, query string, args ...any) ([]string, error) {
	return dbschema.Strings(ctx, d.r, query, args...)
}

// SchemaIn is Tables: a SQLite file's schema is made when it is opened
// (a copy removes the new file it made when it fails).
func (d *DB) SchemaIn(ctx context.Context, _ *Tx) ([]dbschema.Table, error) { return d.Tables(ctx) }

// ResetIdentities does nothing: SQLite numbers a new row after the
// highest rowid whatever wrote it.
func (d *DB) ResetIdentities(context.Context, *Tx, []dbschema.Table) error { return nil }
