package dberr

import (
	"errors"
	"strings"
)

// WithoutPlace is the failure worded, in one line, for a person who may not
// learn where the database lives (a reviewer over SSH): what happened and
// what to do, without the file path, host, port or database name that
// Error names (its reason, Why, may name them too, so it is left out).
func (e *DBError) WithoutPlace() string {
	switch e.Kind {
	case ErrBusy:
		return "the database is busy (another process held its write lock too long); try again"
	case ErrReadOnly:
		return "the database cannot be written at the moment; tell your lead"
	case ErrDamaged:
		return "the database is damaged and refuses writes until it is checked; tell your lead"
	case ErrDiskFull:
		return "the database's disk is full; tell your lead, and try again once space is freed"
	}
	return "the database is unavailable (down, restarting or out of reach); try again in a minute, and tell your lead if it goes on"
}

// Withheld is an error as told to a person who may not learn where the
// database lives: Error is its message without the database's place;
// errors.Is and errors.As see the error it was made from, and Detail says
// that error's own message (for the operator's log).
type Withheld struct {
	err  error
	text string
}

func (w *Withheld) Error() string { return w.text }
func (w *Withheld) Unwrap() error { return w.err }

// Detail is the message of the error w was made from, place and all.
func (w *Withheld) Detail() string { return w.err.Error() }

// Withhold is err with the database's place taken out of its message:
// the text of every *DBError in it replaced by its WithoutPlace wording,
// then each of places (a database's path or URL, as the caller opened it)
// left elsewhere in the message replaced by "the database". When a
// *DBError's text is not in the message as it stands (a wrapper reworded
// it), the message is that failure's WithoutPlace wording alone. nil is
// nil; an error with nothing to withhold comes back as it is.
func Withhold(err error, places ...string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	text := msg
	for _, de := range dbErrors(err, nil) {
		places = append(places, de.Path)
		if full := de.Error(); strings.Contains(text, full) {
			text = strings.ReplaceAll(text, full, de.WithoutPlace())
		} else {
			text = de.WithoutPlace()
			break
		}
	}
	for _, p := range places {
		if p != "" {
			text = strings.ReplaceAll(strings.ReplaceAll(text, "database "+p, "the database"), p, "the database")
		}
	}
	if text == msg {
		return err
	}
	return &Withheld{err: err, text: text}
}

// dbErrors appends the *DBErrors in err's tree to out, outermost first. A
// *DBError's own causes (the driver's error) and what a Withheld already
// holds are not looked into: their text is not err's.
func dbErrors(err error, out []*DBError) []*DBError {
	switch e := err.(type) {
	case nil:
		return out
	case *DBError:
		return append(out, e)
	case *Withheld:
		return out
	case interface{ Unwrap() []error }:
		for _, inner := range e.Unwrap() {
			out = dbErrors(inner, out)
		}
		return out
	}
	return dbErrors(errors.Unwrap(err), out)
}
