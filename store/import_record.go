package store

import (
	"context"
	"fmt"
	"os"
	"time"
)

// An import's writing pass is recorded in the imports table from its start
// to its end, so an import that was interrupted (or whose process was
// killed) is known, with how far it got, until it is run again to the end.

const sqlImportProgress = `UPDATE imports SET written = ?, updated_at = ? WHERE source = ?`

// UnfinishedImport is an import whose writing pass began and did not end.
type UnfinishedImport struct {
	Source  string    `json:"file"`
	Written int       `json:"written"`
	Total   int       `json:"total"`
	Stopped bool      `json:"stopped"` // interrupted and said so; false: running, or its process was killed
	Updated time.Time `json:"updated_at"`
}

// Note is the line `traces` and `status` print about it.
func (u UnfinishedImport) Note() string {
	if u.Stopped {
		return fmt.Sprintf("import of %s stopped at %d of %d traces — run the same import again to finish", u.Source, u.Written, u.Total)
	}
	return fmt.Sprintf("import of %s at %d of %d traces (still running, or its process was killed) — if it is not running, run the same import again to finish",
		u.Source, u.Written, u.Total)
}

// UnfinishedImports lists the imports that have not finished, oldest first.
func (s *Store) UnfinishedImports(ctx context.Context) ([]UnfinishedImport, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT source, written, total, state, updated_at FROM imports ORDER BY updated_at, source`)
	if err != nil {
		return nil, fmt.Errorf("read unfinished imports: %w", err)
	}
	defer rows.Close()
	var out []UnfinishedImport
	for rows.Next() {
		var u UnfinishedImport
		var state, updated string
		if err := rows.Scan(&u.Source, &u.Written, &u.Total, &state, &updated); err != nil {
			return nil, fmt.Errorf("read unfinished imports: %w", err)
		}
		u.Stopped = state == "stopped"
		u.Updated, _ = time.Parse(time.RFC3339Nano, updated)
		out = append(out, u)
	}
	return out, rows.Err()
}

// recordImport notes that the writing pass of source begins.
func (s *Store) recordImport(ctx context.Context, source string, total int) error {
	return s.WithTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO imports(source, total, written, state, updated_at) VALUES (?, ?, 0, 'running', ?)
			ON CONFLICT(source) DO UPDATE SET total = excluded.total, written = 0, state = 'running', updated_at = excluded.updated_at`,
			source, total, s.now())
		return err
	})
}

// stopImport records that the import of source was interrupted after
// written records.
func (s *Store) stopImport(ctx context.Context, source string, written int) error {
	return s.WithTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE imports SET state = 'stopped', written = ?, updated_at = ? WHERE source = ?`,
			written, s.now(), source)
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
	w, err := s.writer(ctx)
	if err != nil {
		return func() {} // the import's first write reports it
	}
	// Its chunks commit with synchronous=NORMAL through withRelaxedTx; the
	// connection itself stays FULL for every other write (a label submit).
	if _, err := w.ExecContext(ctx, `PRAGMA cache_size = -32768`); err == nil {
		_, _ = w.ExecContext(ctx, `PRAGMA wal_autocheckpoint = 0`)
		_, _ = w.ExecContext(ctx, `PRAGMA journal_size_limit = 0`)
		// A multi-row insert keeps the pages it changes in a statement
		// journal (to undo that statement alone): in memory, not in a
		// temporary file rewritten for every statement.
		_, _ = w.ExecContext(ctx, `PRAGMA temp_store = MEMORY`)
	}
	return func() {
		bg := context.WithoutCancel(ctx)
		_, _ = w.ExecContext(bg, `PRAGMA temp_store = DEFAULT`)
		_, _ = w.ExecContext(bg, `PRAGMA journal_size_limit = -1`)
		_, _ = w.ExecContext(bg, `PRAGMA wal_autocheckpoint = 1000`)
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
