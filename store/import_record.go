package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// An import is recorded in the imports table from its first chunk to its
// end, so an import that was interrupted (or whose process was killed) is
// known, with how far it got, until it is run again to the end.

// sqlImportProgress records, with each chunk, where the import of source
// stands: (source, total, written, updated_at, read_bytes, size_bytes).
const sqlImportProgress = `INSERT INTO imports(source, total, written, state, updated_at, read_bytes, size_bytes)
	VALUES (?, ?, ?, 'running', ?, ?, ?)
	ON CONFLICT(source) DO UPDATE SET total = excluded.total, written = excluded.written, state = 'running',
		updated_at = excluded.updated_at, read_bytes = excluded.read_bytes, size_bytes = excluded.size_bytes`

// UnfinishedImport is an import that began writing and did not end.
type UnfinishedImport struct {
	Source string `json:"file"`
	ImportPoint
	Stopped bool      `json:"stopped"` // interrupted and said so; false: running, or its process was killed
	Updated time.Time `json:"updated_at"`
}

// Note is the line `traces` and `status` print about it.
func (u UnfinishedImport) Note() string {
	if u.Stopped {
		return fmt.Sprintf("import of %s stopped at %s — run the same import again to finish", u.Source, u.ImportPoint)
	}
	return fmt.Sprintf("import of %s at %s (still running, or its process was killed) — if it is not running, run the same import again to finish",
		u.Source, u.ImportPoint)
}

const sqlUnfinishedImports = `SELECT source, written, total, read_bytes, size_bytes, state, updated_at FROM imports`

// UnfinishedImports lists the imports that have not finished, oldest first.
func (s *Store) UnfinishedImports(ctx context.Context) ([]UnfinishedImport, error) {
	rows, err := s.r.QueryContext(ctx, sqlUnfinishedImports+` ORDER BY updated_at, source`)
	if err != nil {
		return nil, fmt.Errorf("read unfinished imports: %w", err)
	}
	defer rows.Close()
	var out []UnfinishedImport
	for rows.Next() {
		u, err := scanUnfinishedImport(rows)
		if err != nil {
			return nil, fmt.Errorf("read unfinished imports: %w", err)
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// unfinishedImport is the record of an earlier import of source that has
// not finished, or nil.
func (s *Store) unfinishedImport(ctx context.Context, source string) (*UnfinishedImport, error) {
	u, err := scanUnfinishedImport(s.r.QueryRowContext(ctx, sqlUnfinishedImports+` WHERE source = ?`, source))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read unfinished imports: %w", err)
	}
	return &u, nil
}

func scanUnfinishedImport(row scanner) (UnfinishedImport, error) {
	var u UnfinishedImport
	var state, updated string
	if err := row.Scan(&u.Source, &u.Written, &u.Total, &u.Read, &u.Size, &state, &updated); err != nil {
		return u, err
	}
	u.Stopped = state == "stopped"
	u.Updated, _ = time.Parse(time.RFC3339Nano, updated)
	return u, nil
}

// putImportBack restores the record of an unfinished import as it was.
func (s *Store) putImportBack(ctx context.Context, u UnfinishedImport) error {
	state := "running"
	if u.Stopped {
		state = "stopped"
	}
	return s.WithTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO imports(source, total, written, state, updated_at, read_bytes, size_bytes)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, u.Source, u.Total, u.Written, state, u.Updated.UTC().Format(time.RFC3339Nano), u.Read, u.Size)
		return err
	})
}

// stopImport records that the import of source was interrupted at at.
func (s *Store) stopImport(ctx context.Context, source string, at ImportPoint) error {
	return s.WithTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE imports SET state = 'stopped', written = ?, total = ?, read_bytes = ?, size_bytes = ?, updated_at = ?
			WHERE source = ?`, at.Written, at.Total, at.Read, at.Size, s.now(), source)
		return err
	})
}

// forgetImport removes the record of an import that finished (or whose
// writes were undone).
func (s *Store) forgetImport(ctx context.Context, source string) error {
	return s.WithTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM imports WHERE source = ?`, source)
		return err
	})
}

// checkpointLog is the size of the log past which an import checkpoints
// between two chunks.
const checkpointLog = 64 << 20

// logSize is the size of the database's write-ahead log (0 if none).
func (s *Store) logSize() int64 { return s.db.LogSize() }

// checkpoint copies the write-ahead log back into the database file.
func (s *Store) checkpoint(ctx context.Context) { s.db.Checkpoint(ctx) }
