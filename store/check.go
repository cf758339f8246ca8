package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/klauspost/compress/zstd"

	"github.com/goldtrace/goldtrace/internal/dberr"
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
// decodes). It only reads, one row at a time: its memory does not grow
// with the store, nor with the number of problems (each step keeps its
// first maxProblemsPerKind and counts the rest). An empty list means
// healthy. When the check passes on a writable file, the time is recorded
// so write commands skip their quick check for a day.
func (s *Store) Check(ctx context.Context) ([]Problem, error) {
	if s.pg {
		// The server checks its own pages and enforces foreign keys; a
		// constraint left NOT VALID is what may hide a broken row.
		unchecked := &findings{kind: "constraint"}
		if err := queryFindings(ctx, s.r, unchecked, `SELECT 'constraint ' || conname || ' on ' || conrelid::regclass::text || ' is not validated'
			FROM pg_constraint WHERE NOT convalidated AND connamespace = current_schema()::regnamespace ORDER BY 1`); err != nil {
			return nil, s.wrap("check", err)
		}
		found, err := s.checkInvariants(ctx, make(chan struct{}, checkWorkers), false)
		if err != nil {
			return nil, err
		}
		return problems(append([]*findings{unchecked}, found...)), nil
	}
	// integrity_check reads every page and looks up every index entry, on
	// one core. foreign_key_check and goldtrace's invariants are read
	// meanwhile on other connections of the read pool, and count only when
	// the file's structure is sound (on a damaged file they would read the
	// same damaged pages).
	slots := make(chan struct{}, checkWorkers)
	slots <- struct{}{} // integrity_check's
	invCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		found []*findings
		err   error
	}
	invariants := make(chan result, 1)
	go func() {
		found, err := s.checkInvariants(invCtx, slots, true)
		invariants <- result{found, err}
	}()
	stop := func() { cancel(); <-invariants }
	integrity := &findings{kind: "integrity"}
	if err := queryFindings(ctx, s.r, integrity, `PRAGMA integrity_check(100)`); err != nil {
		stop()
		if errors.Is(s.wrap("check", err), ErrDamaged) {
			return []Problem{{"integrity", "SQLite cannot read the file's structure: " + s.kindText(err)}}, nil
		}
		return nil, s.wrap("check", err)
	}
	if !(len(integrity.lines) == 1 && integrity.lines[0] == "ok") {
		stop()
		return problems([]*findings{integrity}), nil
	}
	<-slots
	inv := <-invariants
	if inv.err != nil {
		return nil, inv.err
	}
	out := problems(inv.found)
	if len(out) == 0 {
		s.db.CheckPassed(ctx)
	}
	return out, nil
}

// findings is what one step of the check found, of one kind: its first
// maxProblemsPerKind lines, and how many more.
type findings struct {
	kind  string
	lines []string
	more  int
}

func (f *findings) add(line string) {
	if len(f.lines) < maxProblemsPerKind {
		f.lines = append(f.lines, line)
		return
	}
	f.more++
}

// problems lists the steps' findings in order, each step's beyond the
// bound counted in one line.
func problems(steps []*findings) []Problem {
	var out []Problem
	for _, f := range steps {
		for _, line := range f.lines {
			out = append(out, Problem{f.kind, line})
		}
		if f.more > 0 {
			out = append(out, Problem{f.kind, fmt.Sprintf("… and %d more", f.more)})
		}
	}
	return out
}

// queryFindings adds to f the text of each row of query (one column).
func queryFindings(ctx context.Context, q Queryer, f *findings, query string, args ...any) error {
	return eachRow(ctx, q, query, args, func(rows *sql.Rows) error {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		f.add(line)
		return nil
	})
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

func foreignKeyProblems(ctx context.Context, q Queryer, f *findings) error {
	return eachRow(ctx, q, `PRAGMA foreign_key_check`, nil, func(rows *sql.Rows) error {
		var table, parent string
		var rowid sql.NullInt64
		var fk int
		if err := rows.Scan(&table, &rowid, &parent, &fk); err != nil {
			return err
		}
		f.add(fmt.Sprintf("%s row %d refers to a missing %s row", table, rowid.Int64, parent))
		return nil
	})
}

// bodyProblems decodes every stored trace body, as a later read would: a
// damaged zstd frame, or one naming a dictionary body_dicts does not hold,
// is found here instead of by the export or the reviewer who reads it.
// Bodies are read one row at a time, so memory stays that of one body.
func (s *Store) bodyProblems(ctx context.Context, f *findings) error {
	return s.scanRows(ctx, func(row scanner) error {
		var id string
		var messages, body []byte
		if err := row.Scan(&id, &messages, &body); err != nil {
			return err
		}
		js, err := s.traceMessagesJSON(ctx, messages, body)
		switch {
		case errors.Is(err, zstd.ErrUnknownDictionary):
			f.add(fmt.Sprintf("trace %s: its body names a compression dictionary that is not stored", id))
		case err != nil && errors.Is(err, ctx.Err()):
			return err
		case err != nil:
			var de *dberr.DBError
			if errors.As(err, &de) {
				return err
			}
			f.add(fmt.Sprintf("trace %s: its stored body cannot be decoded (%v)", id, errors.Unwrap(err)))
		case !json.Valid(js):
			f.add(fmt.Sprintf("trace %s: its stored body is not JSON", id))
		}
		return nil
	}, `SELECT id, messages, body FROM traces ORDER BY id`)
}
