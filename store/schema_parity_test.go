package store

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/internal/pgtest"
)

// The two engines' migrations make the same schema: the same tables, the
// same columns (name, type, NOT NULL) in each, the same named indexes, and
// triggers on the same tables for the same events (PostgreSQL's are
// named otherwise: one trigger function serves several events). A migration added for one engine and not the other fails
// here. What differs on purpose is listed (pgOnly).
func TestSchemaParity(t *testing.T) {
	ctx := context.Background()
	lite, err := Open(ctx, filepath.Join(t.TempDir(), "gt.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	pg, err := Open(ctx, pgtest.Clone(t, "store", migrated))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	a, err := sqliteSchema(ctx, lite)
	if err != nil {
		t.Fatal(err)
	}
	b, err := postgresSchema(ctx, pg)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range b {
		if !pgOnly(line) && !slices.Contains(a, line) {
			t.Errorf("only on PostgreSQL: %s", line)
		}
	}
	for _, line := range a {
		if !slices.Contains(b, line) {
			t.Errorf("only on SQLite: %s", line)
		}
	}
}

// pgOnly is what PostgreSQL's schema has on purpose that SQLite's has not:
// the rowid columns standing for SQLite's hidden rowid (see
// migrations_postgres/0001_init.sql).
func pgOnly(line string) bool {
	return strings.HasSuffix(line, " column rowid integer not null")
}

// sqliteSchema lists the schema of a SQLite store, one line per table,
// column, named index and trigger, in the form postgresSchema uses.
func sqliteSchema(ctx context.Context, st *Store) ([]string, error) {
	var out []string
	objects, err := eachObject(ctx, st, `SELECT type, name, tbl_name FROM sqlite_master
		WHERE name NOT LIKE 'sqlite_%' AND (type = 'table' OR (type = 'index' AND sql IS NOT NULL))
		UNION ALL
		SELECT 'trigger', upper(substr(sql, instr(upper(sql), ' BEFORE ') + 1, 13)), tbl_name FROM sqlite_master WHERE type = 'trigger'`)
	if err != nil {
		return nil, err
	}
	for _, o := range objects {
		if o[0] == "trigger" {
			// "BEFORE UPDATE ", "BEFORE DELETE ", "BEFORE INSERT "
			o[1] = strings.ToLower(strings.TrimSpace(o[1]))
		}
		out = append(out, o[0]+" "+o[1]+" on "+o[2])
		if o[0] != "table" {
			continue
		}
		rows, err := st.r.QueryContext(ctx, `SELECT name, type, "notnull", pk FROM pragma_table_info(?)`, o[1])
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var name, typ string
			var notNull, pk int
			if err := rows.Scan(&name, &typ, &notNull, &pk); err != nil {
				rows.Close()
				return nil, err
			}
			// An INTEGER PRIMARY KEY is never NULL: SQLite numbers it.
			out = append(out, columnLine(o[1], name, sqliteType(typ), notNull == 1 || pk > 0))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	slices.Sort(out)
	return out, nil
}

// postgresSchema lists the schema of a PostgreSQL store as sqliteSchema
// does: indexes that stand for a constraint (primary keys, UNIQUE) are
// left out on both (SQLite's are unnamed).
func postgresSchema(ctx context.Context, st *Store) ([]string, error) {
	objects, err := eachObject(ctx, st, `
		SELECT 'table', table_name::text, table_name::text FROM information_schema.tables
			WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
		UNION ALL
		SELECT 'index', c.relname::text, t.relname::text FROM pg_index i
			JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
			JOIN pg_namespace n ON n.oid = t.relnamespace
			WHERE n.nspname = current_schema() AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
		UNION ALL
		SELECT DISTINCT 'trigger', lower(action_timing || ' ' || event_manipulation), event_object_table::text
			FROM information_schema.triggers WHERE trigger_schema = current_schema()`)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, o := range objects {
		out = append(out, o[0]+" "+o[1]+" on "+o[2])
	}
	rows, err := st.r.QueryContext(ctx, `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name IN (SELECT table_name FROM information_schema.tables
			WHERE table_schema = current_schema() AND table_type = 'BASE TABLE')`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var table, name, typ, nullable string
		if err := rows.Scan(&table, &name, &typ, &nullable); err != nil {
			return nil, err
		}
		out = append(out, columnLine(table, name, postgresType(typ), nullable == "NO"))
	}
	slices.Sort(out)
	return out, rows.Err()
}

func eachObject(ctx context.Context, st *Store, query string) ([][3]string, error) {
	var out [][3]string
	rows, err := st.r.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var o [3]string
		if err := rows.Scan(&o[0], &o[1], &o[2]); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

func columnLine(table, name, typ string, notNull bool) string {
	s := fmt.Sprintf("table %s column %s %s", table, name, typ)
	if notNull {
		s += " not null"
	}
	return s
}

// sqliteType is the type class of a declared SQLite column type.
func sqliteType(t string) string {
	switch t = strings.ToUpper(t); {
	case strings.Contains(t, "INT"):
		return "integer"
	case strings.Contains(t, "TEXT"), strings.Contains(t, "CHAR"):
		return "text"
	case t == "BLOB":
		return "blob"
	case strings.Contains(t, "REAL"), strings.Contains(t, "FLOA"), strings.Contains(t, "DOUB"):
		return "real"
	}
	return "any " + strings.ToLower(t)
}

// postgresType is the type class of a PostgreSQL column's data type.
func postgresType(t string) string {
	switch t {
	case "bigint", "integer", "smallint", "boolean":
		return "integer"
	case "text", "character varying":
		return "text"
	case "bytea":
		return "blob"
	case "double precision", "real":
		return "real"
	}
	return "any " + t
}
