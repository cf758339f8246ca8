// Package dberr is the vocabulary of database failures that every store
// engine (SQLite, PostgreSQL) speaks and the store passes on: sentinel
// kinds callers match with errors.Is, and DBError, a failure of the
// database itself worded for a person.
package dberr

import (
	"errors"
	"fmt"
)

// Kinds of failure.
var (
	// ErrConflict: a unique key is taken.
	ErrConflict = errors.New("conflict")
	// ErrImmutable: a row the schema keeps immutable was to change.
	ErrImmutable = errors.New("immutable")
	// ErrBusy: another process held the write lock longer than the busy
	// timeout. The write can be retried.
	ErrBusy = errors.New("busy")
	// ErrReadOnly: the store was opened read-only or the database cannot
	// be written.
	ErrReadOnly = errors.New("read-only")
	// ErrDamaged: the engine found the database corrupt (or its periodic
	// check failed); writes are refused until `goldtrace check` passes.
	ErrDamaged = errors.New("damaged")
	// ErrDiskFull: the disk (or quota) holding the database is full. The
	// write can be retried once space is freed.
	ErrDiskFull = errors.New("disk full")
	// ErrUnavailable: the database cannot be opened or read (missing, not
	// a database, an I/O error).
	ErrUnavailable = errors.New("unavailable")
)

// ErrUndone is the error of a write whose work was rolled back with the
// transaction it shared (group commit), because another write in it failed
// in a way that ends the whole transaction. It is an ErrBusy: nothing of
// it was saved, try again.
var ErrUndone = fmt.Errorf("%w: the write was undone with the transaction it shared with another, which was interrupted; nothing of it was saved, try again", ErrBusy)

// DBError is a failure of the database itself, worded for a person: one
// line that names the database and says what to do, never the engine's
// own text. errors.Is matches its Kind (ErrBusy, ErrReadOnly, …).
type DBError struct {
	Path string // the database: a file, or a URL without its secrets
	Op   string // what was being done: "open", "write", "commit", …
	Kind error
	Err  error // the driver's error, kept for errors.As
	// Why, when set, says what is wrong in the engine's words for a
	// person (an ErrReadOnly's reason, an ErrUnavailable's cause).
	Why string
}

func (e *DBError) Error() string {
	switch e.Kind {
	case ErrBusy:
		return fmt.Sprintf("database %s is busy: another process held the write lock too long; try again", e.Path)
	case ErrReadOnly:
		why := "it is read-only"
		if e.Why != "" {
			why = e.Why
		}
		return fmt.Sprintf("database %s cannot be written (%s)", e.Path, why)
	case ErrDamaged:
		return fmt.Sprintf("database %s is damaged: run `goldtrace check --db %s` (writes are refused until it passes; if it does not, go back to your last `goldtrace backup` copy)", e.Path, e.Path)
	case ErrDiskFull:
		return fmt.Sprintf("database %s: the disk is full; free space and try again", e.Path)
	}
	why := "cannot read or write it"
	if e.Why != "" {
		why = e.Why
	}
	return fmt.Sprintf("database %s: %s", e.Path, why)
}

func (e *DBError) Unwrap() []error { return []error{e.Kind, e.Err} }
