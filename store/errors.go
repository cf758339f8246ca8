package store

import (
	"errors"

	"github.com/goldtrace/goldtrace/internal/dberr"
	"github.com/goldtrace/goldtrace/store/sqlite"
)

// Sentinel errors callers match with errors.Is. The project's own:
var (
	ErrNotFound = errors.New("not found")
	// ErrForbidden: the user's role does not allow the action.
	ErrForbidden = errors.New("forbidden")
)

// The database's, as every engine reports them (internal/dberr).
var (
	ErrConflict    = dberr.ErrConflict
	ErrImmutable   = dberr.ErrImmutable
	ErrBusy        = dberr.ErrBusy
	ErrReadOnly    = dberr.ErrReadOnly
	ErrDamaged     = dberr.ErrDamaged
	ErrDiskFull    = dberr.ErrDiskFull
	ErrUnavailable = dberr.ErrUnavailable
	ErrUndone      = dberr.ErrUndone
)

// Explain rewords an error that carries a raw database failure of the
// file at path (a read that met a corrupt page, a lock held too long) into
// a *dberr.DBError; other errors are returned as they are. Commands pass every
// error through it before printing.
func Explain(path string, err error) error { return sqlite.Explain(path, err) }

// classify turns driver errors into the sentinels above where one fits.
func classify(err error) error { return sqlite.Classify(err) }
