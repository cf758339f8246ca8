package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
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

// bulkWrites makes the write connection fit for an import's bulk writes
// (whose chunks commit unsynced through withRelaxedTx, not through this
// connection-wide setting: in WAL mode the database stays consistent; a
// crash may lose the last chunks, which the import record shows and the
// next import redoes): a page cache large enough that a chunk does not
// spill, statement journals in memory, and no automatic checkpoints (one
// would run inside a chunk's commit, timed as lock held): the import
// checkpoints between chunks instead, once the log has grown past
// checkpointLog (a log that was checkpointed to its end is truncated when
// the next chunk starts it again, so its size is what was written since).
// The returned func restores the defaults; the next commit, synced again,
// makes everything durable.
func (s *Store) bulkWrites(ctx context.Context) (restore func()) {
	return s.bulkConnection(ctx, true)
}

// bulkConnection sets the write connection up for bulk writes: a page
// cache large enough that a chunk does not spill (the default 2 MB rereads
// index pages from the file for every row), statement journals in memory
// and, with manualCheckpoints, no automatic checkpoints. The returned func
// restores the defaults.
func (s *Store) bulkConnection(ctx context.Context, manualCheckpoints bool) (restore func()) {
	w, err := s.writer(ctx)
	if err != nil {
		return func() {} // the bulk write's first statement reports it
	}
	// Its chunks commit with synchronous=NORMAL through withRelaxedTx; the
	// connection itself stays FULL for every other write (a label submit).
	if _, err := w.ExecContext(ctx, `PRAGMA cache_size = -32768`); err == nil {
		if manualCheckpoints {
			_, _ = w.ExecContext(ctx, `PRAGMA wal_autocheckpoint = 0`)
			_, _ = w.ExecContext(ctx, `PRAGMA journal_size_limit = 0`)
		}
		// A multi-row insert keeps the pages it changes in a statement
		// journal (to undo that statement alone): in memory, not in a
		// temporary file rewritten for every statement.
		_, _ = w.ExecContext(ctx, `PRAGMA temp_store = MEMORY`)
	}
	return func() {
		bg := context.WithoutCancel(ctx)
		_, _ = w.ExecContext(bg, `PRAGMA temp_store = DEFAULT`)
		if manualCheckpoints {
			_, _ = w.ExecContext(bg, `PRAGMA journal_size_limit = -1`)
			_, _ = w.ExecContext(bg, `PRAGMA wal_autocheckpoint = 1000`)
		}
		_, _ = w.ExecContext(bg, `PRAGMA cache_size = -2000`)
	}
}

// checkpointLog is the size of the log past which an import checkpoints
// between two chunks.
const checkpointLog = 64 << 20

// logSize is the size of the database's write-ahead log file (0 if none).
func (s *Store) logSize() int64 {
	fi, err := os.Stat(s.path + "-wal")
	if err != nil {
		return 0
	}
	return fi.Size()
}

// checkpoint copies the write-ahead log back into the database file after a
// bulk write, without waiting for readers (a checkpoint they block is
// finished by a later one).
func (s *Store) checkpoint(ctx context.Context) {
	if w, err := s.writer(ctx); err == nil {
		_, _ = w.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`)
	}
}
