package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/goldtrace/goldtrace/internal/dbschema"
	"github.com/goldtrace/goldtrace/store/postgres"
)

// ErrNotEmpty is a copy's target that holds a project's rows already.
var ErrNotEmpty = errors.New("not empty")

// CopiedTable is how many rows of one table a copy wrote.
type CopiedTable struct {
	Name string `json:"name"`
	Rows int64  `json:"rows"`
}

// copyStatementArgs and copyStatementBytes bound one INSERT of a copy:
// SQLite takes 32,766 parameters at most, PostgreSQL 65,535.
const (
	copyStatementArgs  = 30000
	copyStatementBytes = 8 << 20
)

// CopyTo copies every row of every table of s's project into dst's, which
// must hold none (ErrNotEmpty), in one transaction of dst's: all of it or
// nothing, the schema of a PostgreSQL dst opened with DeferSchema
// included. The tables come from the two schemas (the engines' catalogues),
// not from a list, so a table added by a migration is copied without a
// change here; a table or column that one schema has and the other lacks
// fails the copy, naming it. Rows are read from one snapshot of s (others
// may keep writing to it) in the order they were written, tables after the
// tables they refer to. Exported dataset versions are written 'staging'
// and made 'ready' again once their records and parts are in (ready ones
// are immutable). progress, when set, is told of each table as it is done.
func (s *Store) CopyTo(ctx context.Context, dst *Store, progress func(CopiedTable)) ([]CopiedTable, error) {
	from, err := s.db.Tables(ctx)
	if err != nil {
		return nil, err
	}
	opt := &sql.TxOptions{ReadOnly: true}
	if IsPostgres(s.Path()) {
		opt.Isolation = sql.LevelRepeatableRead // one snapshot for every table
	}
	// On SQLite the read transaction's snapshot is taken at its first read
	// and held to its end.
	snap, err := s.r.BeginTx(ctx, opt)
	if err != nil {
		return nil, s.wrap("read", err)
	}
	defer func() { _ = snap.Rollback() }()
	var done []CopiedTable
	err = dst.db.WithTx(ctx, func(tx *Tx) error {
		defer dst.writes.ended()
		done = nil
		// A PostgreSQL target opened with DeferSchema gets its schema
		// here, in this transaction: a copy that fails leaves none.
		to, err := dst.db.SchemaIn(ctx, tx)
		if err != nil {
			return err
		}
		tables, err := copyPlan(from, to, s.Path(), dst.Path())
		if err != nil {
			return err
		}
		for _, t := range tables {
			var any bool
			if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM `+quoteIdent(t.Name)+`)`).Scan(&any); err != nil {
				return fmt.Errorf("table %s: %w", t.Name, err)
			}
			if any {
				return fmt.Errorf("%s is %w: its table %s has rows (copy writes only into a new project)", dst.Path(), ErrNotEmpty, t.Name)
			}
		}
		var ready [][2]any
		for _, t := range tables {
			n, err := copyTable(ctx, snap, tx, t, IsPostgres(dst.Path()), &ready)
			if err != nil {
				return fmt.Errorf("copy table %s: %w", t.Name, err)
			}
			c := CopiedTable{Name: t.Name, Rows: n}
			done = append(done, c)
			if progress != nil {
				progress(c)
			}
		}
		for _, v := range ready {
			if _, err := tx.ExecContext(ctx, `UPDATE datasets SET state = 'ready' WHERE name = ? AND version = ? AND state = 'staging'`, v[0], v[1]); err != nil {
				return fmt.Errorf("dataset %v@v%v: %w", v[0], v[1], err)
			}
		}
		return dst.db.ResetIdentities(ctx, tx, tables)
	})
	if err != nil {
		return nil, err
	}
	dst.dataChanged()
	// A copied PostgreSQL database has no planner statistics until
	// autovacuum comes by: gather them now, so the first commands on it are
	// not planned as scans of whole tables (nothing on SQLite).
	names := make([]string, len(done))
	for i, c := range done {
		names[i] = c.Name
	}
	dst.db.Analyze(ctx, names...)
	return done, nil
}

// copyPlan matches the tables of the source (from) and the target (to)
// by name and column, and orders the target's so that a table comes after
// those it refers to. The columns written are the target's that the
// database does not number itself.
func copyPlan(from, to []dbschema.Table, fromName, toName string) ([]dbschema.Table, error) {
	src := map[string]dbschema.Table{}
	for _, t := range from {
		src[t.Name] = t
	}
	for _, t := range to {
		if _, ok := src[t.Name]; !ok {
			return nil, fmt.Errorf("table %s of %s is not in %s: the two projects' schemas differ (open both with this goldtrace first)", t.Name, toName, fromName)
		}
	}
	ordered, err := dbschema.InOrder(to)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", toName, err)
	}
	names := map[string]bool{}
	for i, t := range ordered {
		names[t.Name] = true
		f := src[t.Name]
		written := t.Columns[:0:0]
		for _, c := range t.Columns {
			if !c.Generated {
				written = append(written, c)
			}
		}
		for _, c := range written {
			if fc, ok := f.Column(c.Name); !ok || fc.Generated {
				return nil, fmt.Errorf("column %s.%s of %s is not in %s: the two projects' schemas differ", t.Name, c.Name, toName, fromName)
			}
		}
		for _, fc := range f.Columns {
			if _, ok := t.Column(fc.Name); !ok && !fc.Generated {
				return nil, fmt.Errorf("column %s.%s of %s is not in %s: the two projects' schemas differ", t.Name, fc.Name, fromName, toName)
			}
		}
		t.Columns = written
		t.OrderBy = f.OrderBy // the source's order of writing
		ordered[i] = t
	}
	for _, t := range from {
		if !names[t.Name] {
			return nil, fmt.Errorf("table %s of %s is not in %s: the two projects' schemas differ (open both with this goldtrace first)", t.Name, fromName, toName)
		}
	}
	return ordered, nil
}

// copyTable copies the rows of t from src to dst in statements of many
// rows, and returns how many. Versions of datasets are written 'staging';
// ready collects the ready ones.
func copyTable(ctx context.Context, src, dst *sql.Tx, t dbschema.Table, toPostgres bool, ready *[][2]any) (int64, error) {
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = quoteIdent(c.Name)
	}
	list := strings.Join(cols, ", ")
	rows, err := src.QueryContext(ctx, `SELECT `+list+` FROM `+quoteIdent(t.Name)+` ORDER BY `+t.OrderBy)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	state, name, version := -1, -1, -1
	if t.Name == "datasets" {
		state, name, version = slices.Index(cols, `"state"`), slices.Index(cols, `"name"`), slices.Index(cols, `"version"`)
	}
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	head := `INSERT INTO ` + quoteIdent(t.Name) + `(` + list + `) VALUES `
	perStatement := max(1, copyStatementArgs/len(cols))
	var args []any
	var size int
	var n, pending int64
	flush := func() error {
		if pending == 0 {
			return nil
		}
		q := head + strings.TrimSuffix(strings.Repeat(one+", ", int(pending)), ", ")
		if _, err := dst.ExecContext(ctx, q, args...); err != nil {
			if toPostgres && postgres.IsNULText(err) {
				// SQLite's text may hold a NUL character; PostgreSQL's not.
				return fmt.Errorf("one of its rows %d to %d (in the order written) holds text with a NUL character, which PostgreSQL cannot store: take it out of the original, then copy again", n-pending+1, n)
			}
			return err
		}
		clear(args)
		args, size, pending = args[:0], 0, 0
		return nil
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return n, err
		}
		for i, c := range t.Columns {
			v := asKind(vals[i], c)
			if b, ok := v.([]byte); ok && len(b) == 0 && toPostgres {
				v = "" // pgx sends an empty []byte as NULL; an empty text is an empty bytea
			}
			switch x := v.(type) {
			case string:
				size += len(x)
			case []byte:
				size += len(x)
			}
			args = append(args, v)
		}
		if state >= 0 {
			at := len(args) - len(cols)
			if args[at+state] == "ready" {
				args[at+state] = "staging"
				*ready = append(*ready, [2]any{args[at+name], args[at+version]})
			}
		}
		n++
		pending++
		if int(pending) >= perStatement || size >= copyStatementBytes {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	if err := rows.Err(); err != nil {
		return n, err
	}
	return n, flush()
}

// asKind converts a value read from one engine to the type of the column
// it is written to in the other (a STRICT SQLite table refuses a BLOB in
// a TEXT column).
func asKind(v any, c dbschema.Column) any {
	if b, ok := v.([]byte); ok && b == nil {
		v = []byte{} // SQLite's driver reads an empty BLOB as a nil slice (NULL is nil)
	}
	switch c.Kind {
	case dbschema.Text:
		if b, ok := v.([]byte); ok {
			return string(b)
		}
	case dbschema.Blob:
		if s, ok := v.(string); ok {
			return []byte(s)
		}
	case dbschema.Integer:
		if b, ok := v.(bool); ok {
			if b {
				return int64(1)
			}
			return int64(0)
		}
	}
	return v
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
