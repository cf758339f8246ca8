package sqlite

import (
	"errors"
	"fmt"
	"strings"

	"github.com/goldtrace/goldtrace/internal/dberr"
)

// Error explanation: SQLite's failures of the file become *dberr.DBError
// of a kind (busy, read-only, damaged, disk full, unavailable), and
// constraint failures the kinds ErrConflict and ErrImmutable, so the store
// and its callers never see SQLite's own words.

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
		return dberr.ErrBusy
	case 8: // SQLITE_READONLY
		return dberr.ErrReadOnly
	case 11, 26: // SQLITE_CORRUPT, SQLITE_NOTADB
		if codeOf(err)&0xff == 26 {
			return dberr.ErrUnavailable
		}
		return dberr.ErrDamaged
	case 13: // SQLITE_FULL
		return dberr.ErrDiskFull
	case 10, 14: // SQLITE_IOERR, SQLITE_CANTOPEN
		return dberr.ErrUnavailable
	}
	// Errors wrapped with %v lose the driver type; their text is SQLite's.
	return textKind(err.Error())
}

// textKind recognises SQLite's own messages in an error's text.
func textKind(msg string) error {
	switch {
	case strings.Contains(msg, "database is locked"), strings.Contains(msg, "SQLITE_BUSY"), strings.Contains(msg, "database table is locked"):
		return dberr.ErrBusy
	case strings.Contains(msg, "readonly database"):
		return dberr.ErrReadOnly
	case strings.Contains(msg, "disk image is malformed"), strings.Contains(msg, "SQLITE_CORRUPT"):
		return dberr.ErrDamaged
	case strings.Contains(msg, "database or disk is full"), strings.Contains(msg, "no space left on device"):
		return dberr.ErrDiskFull
	case strings.Contains(msg, "file is not a database"), strings.Contains(msg, "disk I/O error"), strings.Contains(msg, "unable to open database"):
		return dberr.ErrUnavailable
	}
	return nil
}

// newError is the *dberr.DBError of a failure of the file at path, with
// its reason worded for a person where SQLite's text would not do.
func newError(path, op string, kind, err error) *dberr.DBError {
	e := &dberr.DBError{Path: path, Op: op, Kind: kind, Err: err}
	if err == nil {
		return e
	}
	plain := !isSQLite(err) && textKind(err.Error()) == nil // not SQLite's words
	switch {
	case kind == dberr.ErrReadOnly:
		if plain {
			e.Why = err.Error()
		}
	case kind == dberr.ErrBusy, kind == dberr.ErrDamaged, kind == dberr.ErrDiskFull:
	case codeOf(err)&0xff == 14:
		e.Why = "cannot open it (does its directory exist and is it writable?)"
	case codeOf(err)&0xff == 26, strings.Contains(err.Error(), "file is not a database"):
		e.Why = "it is not a goldtrace database"
	case plain:
		e.Why = err.Error()
	}
	return e
}

// Wrap turns a failure of the file into a *dberr.DBError naming it
// (marking the file damaged when it is); other errors go through
// classify, prefixed with op when it is not "".
func (d *DB) Wrap(op string, err error) error { return d.wrap(op, err) }

func (d *DB) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var de *dberr.DBError
	if errors.As(err, &de) {
		return err
	}
	if k := kindOf(err); k != nil {
		if k == dberr.ErrDamaged {
			MarkDamaged(d.path)
		}
		return newError(d.path, op, k, err)
	}
	if op != "" {
		return fmt.Errorf("%s: %w", op, classify(err))
	}
	return classify(err)
}

// Explain rewords an error that carries a raw SQLite failure of the file
// at path (a read that met a corrupt page, a lock held too long) into a
// *dberr.DBError; other errors are returned as they are.
func Explain(path string, err error) error {
	if err == nil {
		return nil
	}
	// SQLite's own text anywhere in the message (an error wrapped with %v
	// or joined with another) is replaced as a whole.
	k := textKind(err.Error())
	if k == nil {
		var de *dberr.DBError
		if errors.As(err, &de) {
			return err
		}
		k = kindOf(err)
	}
	if k != nil {
		if k == dberr.ErrDamaged {
			MarkDamaged(path)
		}
		return newError(path, "", k, err)
	}
	return err
}

// Classify turns constraint failures into dberr.ErrConflict (a unique key
// taken) and dberr.ErrImmutable (a trigger that raised "immutable: …");
// other errors are returned as they are.
func Classify(err error) error { return classify(err) }

func classify(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "immutable:"):
		return errors.Join(dberr.ErrImmutable, err)
	case strings.Contains(msg, "UNIQUE constraint failed"), strings.Contains(msg, "PRIMARY KEY"):
		return errors.Join(dberr.ErrConflict, err)
	}
	return err
}
