package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/goldtrace/goldtrace/internal/dberr"
	"github.com/goldtrace/goldtrace/internal/dbschema"
	"github.com/goldtrace/goldtrace/internal/fserr"
)

// quickCheckEvery is how old the last passed quick check may be before a
// write command runs another on open.
const quickCheckEvery = 24 * time.Hour

// quickCheckIfDue runs SQLite's quick_check on the write pool's first use
// when the last passed one is more than a day old, and refuses to write
// into a file that fails it.
func (d *DB) quickCheckIfDue(ctx context.Context, w *sql.DB) error {
	var last string
	err := w.QueryRowContext(ctx, `SELECT value FROM store_state WHERE key = 'quick_check_at'`).Scan(&last)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return d.wrap("read", err)
	}
	_, merr := os.Stat(damagedMarker(d.path))
	suspect := merr == nil
	if t, perr := time.Parse(time.RFC3339Nano, last); !suspect && err == nil && perr == nil && d.Now().Sub(t) < quickCheckEvery {
		return nil
	}
	problems, err := pragmaRows(ctx, w, `PRAGMA quick_check(20)`)
	if err != nil {
		return d.wrap("check", err)
	}
	if len(problems) != 1 || problems[0] != "ok" {
		return newError(d.path, "check", dberr.ErrDamaged, errors.New(problems[0]))
	}
	// Outside a transaction, it says it waits for the lock as one does
	// (see writeWaiters): a bulk writer in another process pauses for it.
	waited := d.waiting(ctx)
	_, err = w.ExecContext(ctx, `INSERT INTO store_state(key, value) VALUES ('quick_check_at', ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, d.now())
	waited()
	if err != nil {
		return d.wrap("write", err)
	}
	os.Remove(damagedMarker(d.path))
	return nil
}

// damagedMarker is the file that says some command met a corrupt page in
// the database: the next write checks the file first, whatever the age of
// its last check. A check that passes removes it.
func damagedMarker(path string) string { return path + ".damaged" }

// MarkDamaged leaves the marker beside the file at path (best effort: the directory may be
// read-only, and the next daily check finds the damage anyway).
func MarkDamaged(path string) {
	if path == "" {
		return
	}
	if f, err := os.OpenFile(damagedMarker(path), os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		f.Close()
	}
}

// pragmaRows runs a PRAGMA returning one text column per row.
func pragmaRows(ctx context.Context, q dbschema.Querier, pragma string) ([]string, error) {
	return dbschema.Strings(ctx, q, pragma)
}

// CheckPassed records that a full check of the file found nothing wrong:
// the damaged marker goes and, on a writable file, write commands skip
// their quick check for a day. Best effort: the next quick check runs
// anyway if this cannot be recorded.
func (d *DB) CheckPassed(ctx context.Context) {
	os.Remove(damagedMarker(d.path))
	if d.readOnly {
		return
	}
	if w, err := d.writer(ctx); err == nil {
		_, _ = w.ExecContext(ctx, `INSERT INTO store_state(key, value) VALUES ('quick_check_at', ?)
			ON CONFLICT(key) DO UPDATE SET value = excluded.value`, d.now())
	}
}

// Backup writes a consistent copy of the database to dest while others
// keep reading and writing (VACUUM INTO reads one snapshot). The copy is
// written beside dest and renamed into place, then checked; dest must not
// exist.
func (d *DB) Backup(ctx context.Context, dest string) error {
	if _, err := os.Stat(dest); err == nil {
		return fmt.Errorf("backup %s: the file exists (choose a new name)", dest)
	}
	abs, err := filepath.Abs(dest)
	if err != nil {
		return fmt.Errorf("backup %s: %w", dest, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".*.tmp")
	if err != nil {
		return fmt.Errorf("backup %s: %w", dest, fserr.Bare(err))
	}
	tmpName := tmp.Name()
	tmp.Close()
	os.Remove(tmpName) // VACUUM INTO wants to create the file itself
	defer os.Remove(tmpName)
	// VACUUM INTO needs a connection that is not query_only; a read-only
	// file is copied through a read-only one.
	src := dsn(d.path, true, d.busy)
	if d.readOnly {
		src = "file:" + d.path + "?mode=ro"
	}
	db, err := sql.Open("sqlite", src)
	if err != nil {
		return d.wrap("backup", err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, tmpName); err != nil {
		if k := kindOf(err); k == dberr.ErrDiskFull {
			return fmt.Errorf("backup %s: the disk is full", dest)
		}
		return fmt.Errorf("backup %s: %w", dest, d.wrap("read", err))
	}
	copyDB, err := sql.Open("sqlite", "file:"+tmpName+"?mode=ro")
	if err != nil {
		return fmt.Errorf("backup %s: %w", dest, err)
	}
	res, err := pragmaRows(ctx, copyDB, `PRAGMA quick_check`)
	copyDB.Close()
	if err != nil || len(res) != 1 || res[0] != "ok" {
		return fmt.Errorf("backup %s: the copy did not pass its check; the database may be damaged: run `goldtrace check`", dest)
	}
	if err := syncFile(tmpName); err != nil {
		return fmt.Errorf("backup %s: %w", dest, err)
	}
	if err := os.Rename(tmpName, abs); err != nil {
		return fmt.Errorf("backup %s: %w", dest, fserr.Bare(err))
	}
	return nil
}

func syncFile(name string) error {
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
