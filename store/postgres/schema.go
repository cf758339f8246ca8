package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/goldtrace/goldtrace/internal/dbschema"
)

// bookkeeping are the engine's own tables (migrations applied, and the
// state SQLite's engine keeps): not the project's.
var bookkeeping = map[string]bool{"schema_migrations": true, "store_state": true}

// Tables describes the project's tables (the engine's bookkeeping left
// out) from the information schema of the connection's schema.
func (d *DB) Tables(ctx context.Context) ([]dbschema.Table, error) {
	return d.tables(ctx, d.db)
}

// tables is Tables as q (the pool, or a transaction) sees them.
func (d *DB) tables(ctx context.Context, q queryer) ([]dbschema.Table, error) {
	rows, err := q.QueryContext(ctx, `SELECT c.table_name, c.column_name, c.data_type, c.is_identity, coalesce(c.identity_generation, ''), c.is_generated
		FROM information_schema.columns c JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
		WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
		ORDER BY c.table_name, c.ordinal_position`)
	if err != nil {
		return nil, d.wrap("read the schema", err)
	}
	var out []dbschema.Table
	for rows.Next() {
		var table, typ, identity, generation, generated string
		var c dbschema.Column
		if err := rows.Scan(&table, &c.Name, &typ, &identity, &generation, &generated); err != nil {
			rows.Close()
			return nil, d.wrap("read the schema", err)
		}
		if bookkeeping[table] {
			continue
		}
		switch typ {
		case "bigint", "integer", "smallint", "boolean":
			c.Kind = dbschema.Integer
		case "bytea":
			c.Kind = dbschema.Blob
		case "double precision", "real", "numeric":
			c.Kind = dbschema.Real
		case "text", "character varying", "character", "jsonb", "json":
			c.Kind = dbschema.Text
		default:
			rows.Close()
			return nil, fmt.Errorf("%s: column %s.%s has type %s, which goldtrace does not copy", d.name, table, c.Name, typ)
		}
		c.Generated = generation == "ALWAYS" || generated == "ALWAYS"
		c.Identity = identity == "YES" && !c.Generated
		if len(out) == 0 || out[len(out)-1].Name != table {
			out = append(out, dbschema.Table{Name: table})
		}
		out[len(out)-1].Columns = append(out[len(out)-1].Columns, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, d.wrap("read the schema", err)
	}
	for i := range out {
		t := &out[i]
		if t.Parents, err = dbschema.Strings(ctx, q, `SELECT DISTINCT confrelid::regclass::text FROM pg_constraint
			WHERE contype = 'f' AND conrelid = to_regclass(?)`, t.Name); err != nil {
			return nil, d.wrap("read the schema of table "+t.Name, err)
		}
		if _, ok := t.Column("rowid"); ok {
			t.OrderBy = "rowid"
			continue
		}
		pk, err := dbschema.Strings(ctx, q, `SELECT a.attname FROM pg_index i
			JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, n) ON true
			JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
			WHERE i.indrelid = to_regclass(?) AND i.indisprimary ORDER BY k.n`, t.Name)
		if err != nil {
			return nil, d.wrap("read the schema of table "+t.Name, err)
		}
		if len(pk) == 0 {
			return nil, fmt.Errorf("%s: table %s has neither a rowid column nor a primary key to copy it in order", d.name, t.Name)
		}
		t.OrderBy = strings.Join(pk, ", ")
	}
	return out, nil
}

// ResetIdentities makes the identity columns of tables (rows written with
// their numbers) number the next row after their highest.
func (d *DB) ResetIdentities(ctx context.Context, tx *Tx, tables []dbschema.Table) error {
	for _, t := range tables {
		for _, c := range t.Columns {
			if !c.Identity {
				continue
			}
			_, err := tx.ExecContext(ctx, fmt.Sprintf(`SELECT setval(pg_get_serial_sequence(?, ?), coalesce(max(%s), 0) + 1, false) FROM %s`, quote(c.Name), quote(t.Name)),
				t.Name, c.Name)
			if err != nil {
				return fmt.Errorf("number the next row of %s: %w", t.Name, err)
			}
		}
	}
	return nil
}

func quote(ident string) string { return `"` + strings.ReplaceAll(ident, `"`, `""`) + `"` }

func (d *DB) strings(ctx context.Context, query string, args ...any) ([]string, error) {
	return dbschema.Strings(ctx, d.db, query, args...)
}
