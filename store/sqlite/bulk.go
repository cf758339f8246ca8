package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/goldtrace/goldtrace/internal/bulk"
	"github.com/goldtrace/goldtrace/internal/fserr"
)

// Paced runs a bulk write in short transactions until step says nothing is
// left: step gets a deadline after which it stops taking work, and the
// lock is left free for pace.Yield between transactions. Once step is done
// the write is durable. The transactions run under bulk.Write(ctx).
func (d *DB) Paced(ctx context.Context, pace bulk.Pace, step func(tx *Tx, deadline time.Time) (more bool, err error)) error {
	var last time.Time
	for more := true; more; {
		if !last.IsZero() {
			if err := d.PauseForWaiters(ctx, last, pace.Yield); err != nil {
				return err
			}
		}
		var began time.Time
		var work time.Duration
		fn := func(tx *Tx) error {
			var err error
			began = time.Now()
			more, err = step(tx, began.Add(pace.ChunkTime))
			work = time.Since(began)
			return err
		}
		var err error
		if pace.Full {
			err = d.WithTx(bulk.Write(ctx), fn)
		} else {
			err = d.WithRelaxedTx(bulk.Write(ctx), fn)
		}
		if err != nil {
			return err
		}
		last = time.Now()
		if pace.Held != nil {
			pace.Held(work, last.Sub(began))
		}
		if more && pace.Between != nil {
			pace.Between()
		}
	}
	if !pace.Full {
		return d.syncLog()
	}
	return nil
}

// UntilDone is a paced step that runs remove (one bounded step of a bulk
// removal, saying how many rows it removed) until it removes nothing or the
// transaction's deadline has passed.
func UntilDone(remove func(tx *Tx) (int, error)) func(tx *Tx, deadline time.Time) (bool, error) {
	return func(tx *Tx, deadline time.Time) (bool, error) {
		for {
			n, err := remove(tx)
			if err != nil || n == 0 {
				return false, err
			}
			if !time.Now().Before(deadline) {
				return true, nil
			}
		}
	}
}

// WithRelaxedTx is WithTx committed with synchronous=NORMAL: the commit
// writes the log without waiting for the disk. The write connection is
// held for the transaction, so no other write of this process commits
// relaxed, and is put back to FULL after it (or discarded if it cannot be).
func (d *DB) WithRelaxedTx(ctx context.Context, fn func(tx *Tx) error) error {
	w, err := d.writer(ctx)
	if err != nil {
		return err
	}
	conn, err := w.Conn(ctx)
	if err != nil {
		return d.wrap("begin", err)
	}
	defer conn.Close()
	defer d.committed(ctx)
	if _, err := conn.ExecContext(ctx, `PRAGMA synchronous = NORMAL`); err != nil {
		return d.wrap("begin", err)
	}
	defer func() {
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA synchronous = FULL`); err != nil {
			_ = conn.Raw(func(any) error { return driver.ErrBadConn }) // never reused relaxed
		}
	}()
	return d.withTxOn(ctx, conn, fn)
}

// PrepareWrite prepares query on the write connection (there is one), for a
// bulk writer that runs it in many transactions: Tx.StmtContext then uses
// the statement prepared there instead of parsing the SQL again for each.
func (d *DB) PrepareWrite(ctx context.Context, query string) (*sql.Stmt, error) {
	w, err := d.writer(ctx)
	if err != nil {
		return nil, err
	}
	return w.PrepareContext(ctx, query)
}

// syncLog makes what relaxed commits wrote durable: it syncs the
// write-ahead log to disk (its frames are the commits, in order).
func (d *DB) syncLog() error {
	f, err := os.OpenFile(d.path+"-wal", os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // checkpointed and removed: in the database file, synced
	}
	if err != nil {
		return fmt.Errorf("sync %s: %w", d.path, fserr.Bare(err))
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("the write reached %s but could not be synced to disk: %w", d.path, fserr.Bare(err))
	}
	return nil
}

// ExecAlone runs one write statement outside a transaction (it is written
// whole or not at all). It says it waits for the lock as a transaction
// does (see writeWaiters): a bulk writer in another process pauses for it.
func (d *DB) ExecAlone(ctx context.Context, query string, args ...any) error {
	w, err := d.writer(ctx)
	if err != nil {
		return err
	}
	waited := d.waiting(ctx)
	_, err = w.ExecContext(ctx, query, args...)
	waited()
	d.committed(ctx)
	return err
}

// BulkTuning makes the write connection fit for an import's bulk writes:
// a page cache of cacheMiB so big indexes do not spill, statement journals in
// memory, and no automatic checkpoints (one would run inside a chunk's
// commit, timed as lock held): the import checkpoints between chunks
// instead (Checkpoint, once LogSize has grown past what it allows). The
// returned func restores the defaults; the next commit, synced again,
// makes everything durable.
func (d *DB) BulkTuning(ctx context.Context, cacheMiB int) (restore func()) {
	w, err := d.writer(ctx)
	if err != nil {
		return func() {} // the import's first write reports it
	}
	// Its chunks commit with synchronous=NORMAL through WithRelaxedTx; the
	// connection itself stays FULL for every other write (a label submit).
	if _, err := w.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_size = -%d`, cacheMiB<<10)); err == nil {
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

// Analyze does nothing on SQLite: its planner needs no statistics for the
// bulk writes' lookups by key (PostgreSQL's does).
func (d *DB) Analyze(context.Context, ...string) {}

// LogSize is the size of the database's write-ahead log file (0 if none):
// what has been written since the last checkpoint that emptied it.
func (d *DB) LogSize() int64 {
	fi, err := os.Stat(d.path + "-wal")
	if err != nil {
		return 0
	}
	return fi.Size()
}

// Checkpoint copies the write-ahead log back into the database file after a
// bulk write, without waiting for readers (a checkpoint they block is
// finished by a later one).
func (d *DB) Checkpoint(ctx context.Context) {
	if w, err := d.writer(ctx); err == nil {
		_, _ = w.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`)
	}
}

// KeepLogSmall bounds the write-ahead log of a long-running process until
// ctx ends. SQLite's automatic checkpoints keep it small while readers let
// them finish; when the log has grown past a quarter of limit anyway
// (readers kept old pages in use), a PASSIVE checkpoint (it waits for no
// reader) copies what it can, and past limit a TRUNCATE checkpoint shrinks
// the file once no reader needs it. Checked every interval; a log under a
// quarter of limit costs nothing.
func (d *DB) KeepLogSmall(ctx context.Context, every time.Duration, limit int64) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		size := d.LogSize()
		if size <= limit/4 {
			continue
		}
		w, err := d.writer(ctx)
		if err != nil {
			continue
		}
		_, _ = w.ExecContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`)
		if size > limit {
			_, _ = w.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
		}
	}
}
