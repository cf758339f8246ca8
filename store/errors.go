package store

import (
	"errors"
	"strings"
)

// Sentinel errors callers match with errors.Is.
var (
	ErrNotFound  = errors.New("not found")
	ErrConflict  = errors.New("conflict")
	ErrImmutable = errors.New("immutable")
	// ErrForbidden: the user's role does not allow the action.
	ErrForbidden = errors.New("forbidden")
)

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
