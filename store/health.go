package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/klauspost/compress/zstd"

	"github.com/goldtrace/goldtrace/internal/dberr"
	"github.com/goldtrace/goldtrace/store/postgres"
)

// Problem is one thing `goldtrace check` found wrong.
type Problem struct {
	Kind   string `json:"kind"`   // integrity, foreign_key, label, gold, dataset, draft, batch
	Detail string `json:"detail"` // what and where, one line
}

// maxProblemsPerKind bounds the list: a damaged file can have thousands.
const maxProblemsPerKind = 50

// Check verifies the whole file: SQLite's integrity_check and
// foreign_key_check, then goldtrace's own invariants (every submitted
// assignment has its label, every gold item its source labels and an item
// in a gold status, every exported version its records and content hash,
// no draft left on a finished assignment, no half-written batch, an item
// assigned exactly when it has left status 'new' and gold only for such
// an item, every item the metadata of its trace, every trace body
// decodes). It only
// reads. An empty list means healthy. When the check passes on a writable
// file, the time is recorded so write commands skip their quick check for
// a day.
func (s *Store) Check(ctx context.Context) ([]Problem, error) {
	var out []Problem
	add := func(kind string, details []string) {
		for i, d := range details {
			if i == maxProblemsPerKind {
				out = append(out, Problem{kind, fmt.Sprintf("… and %d more", len(details)-i)})
				break
			}
			out = append(out, Problem{kind, d})
		}
	}
	if _, pg := s.db.(*postgres.DB); pg {
		// The server checks its own pages and enforces foreign keys; a
		// constraint left NOT VALID is what may hide a broken row.
		unchecked, err := queryStrings(ctx, s.r, `SELECT 'constraint ' || conname || ' on ' || conrelid::regclass::text || ' is not validated'
			FROM pg_constraint WHERE NOT convalidated AND connamespace = current_schema()::regnamespace ORDER BY 1`)
		if err != nil {
			return nil, s.wrap("check", err)
		}
		add("constraint", unchecked)
		if err := s.checkInvariants(ctx, add); err != nil {
			return nil, err
		}
		return out, nil
	}
	integrity, err := queryStrings(ctx, s.r, `PRAGMA integrity_check(100)`)
	if err != nil {
		if errors.Is(s.wrap("check", err), ErrDamaged) {
			return []Problem{{"integrity", "SQLite cannot read the file's structure: " + s.kindText(err)}}, nil
		}
		return nil, s.wrap("check", err)
	}
	if !(len(integrity) == 1 && integrity[0] == "ok") {
		add("integrity", integrity)
		// The invariant queries would read the same damaged pages.
		return out, nil
	}
	fks, err := foreignKeyProblems(ctx, s.r)
	if err != nil {
		return nil, s.wrap("check", err)
	}
	add("foreign_key", fks)
	if err := s.checkInvariants(ctx, add); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		s.db.CheckPassed(ctx)
	}
	return out, nil
}

// checkInvariants adds what goldtrace's own rules find (on both engines).
func (s *Store) checkInvariants(ctx context.Context, add func(kind string, details []string)) error {
	for _, inv := range invariants {
		found, err := queryStrings(ctx, s.r, inv.query)
		if err != nil {
			return fmt.Errorf("check %s: %w", inv.kind, s.wrap("", err))
		}
		add(inv.kind, found)
	}
	for _, inv := range itemInvariants {
		if has, err := s.hasItemsColumn(ctx, inv.column); err != nil {
			return s.wrap("check", err)
		} else if !has {
			continue
		}
		found, err := queryStrings(ctx, s.r, inv.query)
		if err != nil {
			return fmt.Errorf("check %s: %w", inv.kind, s.wrap("", err))
		}
		add(inv.kind, found)
	}
	// A batch being written now is not a problem; one whose writer has
	// not been heard of for a minute was left by a killed sample.
	left, err := queryStrings(ctx, s.r, `SELECT 'batch ' || name || ' was left half-written by a sample that did not finish (the next sample removes it)'
		FROM batches WHERE state = 'writing' AND heartbeat_at < ?`, s.heartbeat(s.Now().Add(-abandonedAfter)))
	if err != nil {
		return s.wrap("check", err)
	}
	add("batch", left)
	staged, err := queryStrings(ctx, s.r, `SELECT 'dataset ' || name || '@v' || version || ' was left half-written by an export that did not finish (the next export removes it)'
		FROM datasets WHERE state = 'staging' AND heartbeat_at < ?`, s.heartbeat(s.Now().Add(-abandonedAfter)))
	if err != nil {
		return s.wrap("check", err)
	}
	add("dataset", staged)
	ds, err := s.datasetProblems(ctx)
	if err != nil {
		return err
	}
	add("dataset", ds)
	bodies, err := s.bodyProblems(ctx)
	if err != nil {
		return s.wrap("check", err)
	}
	add("trace", bodies)
	return nil
}

// bodyProblems decodes every stored trace body, as a later read would: a
// damaged zstd frame, or one naming a dictionary body_dicts does not hold,
// is found here instead of by the export or the reviewer who reads it.
// Bodies are read one row at a time, so memory stays that of one body.
func (s *Store) bodyProblems(ctx context.Context) ([]string, error) {
	var out []string
	err := s.scanRows(ctx, func(row scanner) error {
		var id string
		var messages, body []byte
		if err := row.Scan(&id, &messages, &body); err != nil {
			return err
		}
		js, err := s.traceMessagesJSON(ctx, messages, body)
		switch {
		case errors.Is(err, zstd.ErrUnknownDictionary):
			out = append(out, fmt.Sprintf("trace %s: its body names a compression dictionary that is not stored", id))
		case err != nil && errors.Is(err, ctx.Err()):
			return err
		case err != nil:
			var de *dberr.DBError
			if errors.As(err, &de) {
				return err
			}
			out = append(out, fmt.Sprintf("trace %s: its stored body cannot be decoded (%v)", id, errors.Unwrap(err)))
		case !json.Valid(js):
			out = append(out, fmt.Sprintf("trace %s: its stored body is not JSON", id))
		}
		return nil
	}, `SELECT id, messages, body FROM traces ORDER BY id`)
	return out, err
}

// kindText is the one-line wording of a driver error's kind.
func (s *Store) kindText(err error) string {
	switch err := s.db.Wrap("", err); {
	case errors.Is(err, ErrDamaged):
		return "a page is corrupt"
	case errors.Is(err, ErrUnavailable):
		return "it is not a database or cannot be read"
	}
	return "read failed"
}

func foreignKeyProblems(ctx context.Context, q Queryer) ([]string, error) {
	rows, err := q.QueryContext(ctx, `PRAGMA foreign_key_check`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var table, parent string
		var rowid sql.NullInt64
		var fk int
		if err := rows.Scan(&table, &rowid, &parent, &fk); err != nil {
			return nil, err
		}
		out = append(out, fmt.Sprintf("%s row %d refers to a missing %s row", table, rowid.Int64, parent))
	}
	return out, rows.Err()
}

// itemInvariants are invariants that read a column of items added by a
// later migration (column): check does not upgrade the schema, and a store
// from before the column has nothing there to check.
var itemInvariants = []struct{ kind, query, column string }{
	// Sampling reads the items in a batch from in_batch (a column a label
	// does not write, unlike status): set exactly when status is not 'new'.
	{"batch", `SELECT 'item ' || i.id || ' is ' || i.status || ' but has in_batch ' || i.in_batch
		FROM items i WHERE i.in_batch != CASE WHEN i.status = 'new' THEN 0 ELSE 1 END`, "in_batch"},
}

// hasItemsColumn reports whether the items table has the column.
func (s *Store) hasItemsColumn(ctx context.Context, column string) (bool, error) {
	q := `SELECT count(*) FROM pragma_table_info('items') WHERE name = ?`
	if s.pg {
		q = `SELECT count(*) FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'items' AND column_name = ?`
	}
	var n int
	err := s.r.QueryRowContext(ctx, q, column).Scan(&n)
	return n > 0, err
}

// invariants are goldtrace's own rules, each a query returning one line per
// violation.
var invariants = []struct{ kind, query string }{
	{"label", `SELECT 'assignment ' || a.item_id || ' / ' || a.reviewer || ' is submitted but has no label'
		FROM assignments a LEFT JOIN labels l ON l.item_id = a.item_id AND l.reviewer = a.reviewer
		WHERE a.status = 'submitted' AND l.item_id IS NULL`},
	{"gold", `SELECT 'item ' || i.id || ' is ' || i.status || ' but has no gold answer'
		FROM items i LEFT JOIN gold g ON g.item_id = i.id
		WHERE i.status != 'new' AND i.status IN ('agreed', 'adjudicated') AND g.item_id IS NULL`},
	{"gold", `SELECT 'gold answer of ' || g.item_id || ' names reviewer ' || r.value || ', who has no label for it'
		FROM gold g CROSS JOIN json_each(g.reviewers) r
		LEFT JOIN labels l ON l.item_id = g.item_id AND l.reviewer = r.value
		WHERE l.item_id IS NULL`},
	{"gold", `SELECT 'gold answer of ' || g.item_id || ' has no source label'
		FROM gold g WHERE g.status = 'agreed' AND NOT EXISTS (SELECT 1 FROM labels l WHERE l.item_id = g.item_id)`},
	{"draft", `SELECT 'draft of ' || d.item_id || ' by ' || d.reviewer || ' is left on a ' || a.status || ' assignment'
		FROM drafts d JOIN assignments a ON a.item_id = d.item_id AND a.reviewer = d.reviewer
		WHERE a.status IN ('submitted', 'skipped')`},
	{"draft", `SELECT 'draft of ' || d.item_id || ' by ' || d.reviewer || ' has no assignment'
		FROM drafts d LEFT JOIN assignments a ON a.item_id = d.item_id AND a.reviewer = d.reviewer
		WHERE a.item_id IS NULL`},
	// An item leaves status 'new' exactly when a sample assigns it (status
	// counts a batch's items from items_status, sampling skips them by
	// it), and only one with labels can have gold.
	{"batch", `SELECT 'item ' || i.id || ' is ' || i.status || ' but assigned to no one'
		FROM items i WHERE i.status != 'new' AND NOT EXISTS (SELECT 1 FROM assignments a WHERE a.item_id = i.id)`},
	{"batch", `SELECT 'item ' || a.item_id || ' is new but assigned to ' || a.reviewer || ' in batch ' || a.batch
		FROM assignments a JOIN items i ON i.id = a.item_id WHERE i.status = 'new'`},
	{"gold", `SELECT 'gold answer of ' || g.item_id || ' is of an item no batch holds'
		FROM gold g JOIN items i ON i.id = g.item_id WHERE i.status = 'new'`},
	// Sampling and export filters read an item's metadata from its copy of
	// the trace's metaset.
	{"metadata", `SELECT 'item ' || i.id || ' has metaset ' || coalesce(CAST(i.metaset AS TEXT), 'none') || ', its trace ' || i.trace_id || ' has ' || coalesce(CAST(t.metaset AS TEXT), 'none')
		FROM items i JOIN traces t ON t.id = i.trace_id WHERE i.metaset IS DISTINCT FROM t.metaset`},
}

// datasetProblems checks every exported version: its item rows number its
// count, and its stored content hashes to its sha256.
func (s *Store) datasetProblems(ctx context.Context) ([]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT d.name, d.version, d.count,
		(SELECT count(*) FROM dataset_items di WHERE di.name = d.name AND di.version = d.version)
		FROM datasets d WHERE d.state = 'ready' ORDER BY d.name, d.version`)
	if err != nil {
		return nil, s.wrap("check", err)
	}
	type version struct {
		name       string
		v, n, rows int
	}
	var vs []version
	for rows.Next() {
		var x version
		if err := rows.Scan(&x.name, &x.v, &x.n, &x.rows); err != nil {
			rows.Close()
			return nil, s.wrap("check", err)
		}
		vs = append(vs, x)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.wrap("check", err)
	}
	var out []string
	for _, x := range vs {
		if x.rows != x.n {
			out = append(out, fmt.Sprintf("dataset %s@v%d has %d records, its manifest counts %d", x.name, x.v, x.rows, x.n))
		}
		meta, content, _, err := s.DatasetFiles(ctx, x.name, x.v)
		if err != nil {
			out = append(out, fmt.Sprintf("dataset %s@v%d: its content cannot be read (%v)", x.name, x.v, s.wrap("", err)))
			continue
		}
		sum := sha256.Sum256(content)
		if got := hex.EncodeToString(sum[:]); got != meta.SHA256 {
			out = append(out, fmt.Sprintf("dataset %s@v%d: content hashes to %s, recorded %s", x.name, x.v, got[:12], meta.SHA256))
		}
	}
	return out, nil
}

// Backup writes a consistent copy of the database to dest while others
// keep reading and writing, and checks it; dest must not exist.
func (s *Store) Backup(ctx context.Context, dest string) error { return s.db.Backup(ctx, dest) }
