package store

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors callers match with errors.Is.
var (
	ErrNotFound  = errors.New("not found")
	ErrConflict  = errors.New("conflict")
	ErrImmutable = errors.New("immutable")
	// ErrForbidden: the user's role does not allow the action.
	ErrForbidden = errors.New("forbidden")

	// ErrBusy: another process held the write lock longer than the busy
	// timeout. The write can be retried.
	ErrBusy = errors.New("busy")
	// ErrReadOnly: the store was opened read-only or the file cannot be
	// written.
	ErrReadOnly = errors.New("read-only")
	// ErrDamaged: SQLite found the file corrupt (or the daily quick check
	// failed); writes are refused until `goldtrace check` passes.
	ErrDamaged = errors.New("damaged")
	// ErrDiskFull: the disk (or quota) holding the database is full. The
	// write can be retried once space is freed.
	ErrDiskFull = errors.New("disk full")
	// ErrUnavailable: the file cannot be opened or read (missing, not a
	// directory, an I/O error).
	ErrUnavailable = errors.New("unavailable")
)

// DBError is a failure of the database file itself, worded for a person:
// one line that names the file and says what to do, never SQLite's own
// text. errors.Is matches its Kind (ErrBusy, ErrReadOnly, …).
type DBError struct {
	Path string
	Op   string // what was being done: "open", "write", "commit", …
	Kind error
	Err  error // the driver's error, kept for errors.As
}

func (e *DBError) Error() string {
	switch e.Kind {
	case ErrBusy:
		return fmt.Sprintf("database %s is busy: another process held the write lock too long; try again", e.Path)
	case ErrReadOnly:
		why := "it is read-only"
		if e.Err != nil && !isSQLite(e.Err) {
			why = e.Err.Error()
		}
		return fmt.Sprintf("database %s cannot be written (%s)", e.Path, why)
	case ErrDamaged:
		return fmt.Sprintf("database %s is damaged: run `goldtrace check --db %s` (writes are refused until it passes; if it does not, go back to your last `goldtrace backup` copy)", e.Path, e.Path)
	case ErrDiskFull:
		return fmt.Sprintf("database %s: the disk is full; free space and try again", e.Path)
	}
	why := "cannot read or write it"
	if e.Err != nil && !isSQLite(e.Err) {
		why = e.Err.Error()
	} else if e.Err != nil && codeOf(e.Err)&0xff == 14 {
		why = "cannot open it (does its directory exist and is it writable?)"
	} else if e.Err != nil && codeOf(e.Err)&0xff == 26 {
		why = "it is not a goldtrace database"
	}
	return fmt.Sprintf("database %s: %s", e.Path, why)
}

func (e *DBError) Unwrap() []error { return []error{e.Kind, e.Err} }

// sqliteCoder is the driver's error (modernc.org/sqlite's *sqlite.Error).
type sqliteCoder interface{ Code() int }

func isSQLite(err error) bool {
	var c sqliteCoder
	return errors.As(err, &c)
}

func codeOf(err error) int {
	var c sqliteCoder
	if errors.As(err, &c) {
		return c.Code()
	}
	return 0
}

// kindOf maps a driver failure of the file to its sentinel; nil for errors
// that are not about the file (constraints, bad SQL, the caller's own).
func kindOf(err error) error {
	if err == nil {
		return nil
	}
	switch codeOf(err) & 0xff {
	case 5, 6: // SQLITE_BUSY, SQLITE_LOCKED
		return ErrBusy
	case 8: // SQLITE_READONLY
		return ErrReadOnly
	case 11, 26: // SQLITE_CORRUPT, SQLITE_NOTADB
		if codeOf(err)&0xff == 26 {
			return ErrUnavailable
		}
		return ErrDamaged
	case 13: // SQLITE_FULL
		return ErrDiskFull
	case 10, 14: // SQLITE_IOERR, SQLITE_CANTOPEN
		return ErrUnavailable
	}
	// Errors wrapped with %v lose the driver type; their text is SQLite's.
	msg := err.Error()
	switch {
	case strings.Contains(msg, "database is locked"), strings.Contains(msg, "SQLITE_BUSY"), strings.Contains(msg, "database table is locked"):
		return ErrBusy
	case strings.Contains(msg, "readonly database"):
		return ErrReadOnly
	case strings.Contains(msg, "disk image is malformed"), strings.Contains(msg, "SQLITE_CORRUPT"):
		return ErrDamaged
	case strings.Contains(msg, "database or disk is full"), strings.Contains(msg, "no space left on device"):
		return ErrDiskFull
	case strings.Contains(msg, "file is not a database"), strings.Contains(msg, "disk I/O error"), strings.Contains(msg, "unable to open database"):
		return ErrUnavailable
	}
	return nil
}

// wrap turns a failure of the file into a *DBError naming it; other
// errors go through classify.
func (s *Store) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var de *DBError
	if errors.As(err, &de) {
		return err
	}
	if k := kindOf(err); k != nil {
		if k == ErrDamaged {
			markDamaged(s.path)
		}
		return &DBError{Path: s.path, Op: op, Kind: k, Err: err}
	}
	if op != "" {
		return fmt.Errorf("%s: %w", op, classify(err))
	}
	return classify(err)
}

// Explain rewords an error that carries a raw SQLite failure of the file
// at path (a read that met a corrupt page, a lock held too long) into a
// *DBError; other errors are returned as they are. Commands pass every
// error through it before printing.
func Explain(path string, err error) error {
	if err == nil {
		return nil
	}
	var de *DBError
	if errors.As(err, &de) {
		return err
	}
	if k := kindOf(err); k != nil {
		if k == ErrDamaged {
			markDamaged(path)
		}
		return &DBError{Path: path, Kind: k, Err: err}
	}
	return err
}

// classify turns driver errors into the sentinels above where one fits.
func classify(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "immutable:"):
		return errors.Join(ErrImmutable, err)
	case strings.Contains(msg, "UNIQUE constraint failed"), strings.Contains(msg, "PRIMARY KEY"):
		return errors.Join(ErrConflict, err)
	}
	return err
}
