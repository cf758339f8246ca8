package app

import (
	"github.com/goldtrace/goldtrace/internal/dberr"
)

// Shown is err as actor may be told it: as it is when they may see where
// the database lives (Actor.SeesDatabase); otherwise every database
// failure in it is worded without the database's file path, host, port
// or name (what happened and what to do), and the database's path or URL
// left elsewhere in it is taken out (Withheld). errors.Is and errors.As
// still see the failure. What was withheld goes to OnWithheld's function
// (the server's log).
func (a *App) Shown(actor Actor, err error) error {
	if err == nil || actor.SeesDatabase() {
		return err
	}
	shown := Withheld(err, a.st.Path())
	if f := a.withheld.Load(); f != nil && shown != err {
		(*f)(actor, err)
	}
	return shown
}

// OnWithheld has f told, with its actor, each error Shown withheld the
// database's place from: the operator's log keeps what the user was not
// told. Set it before serving.
func (a *App) OnWithheld(f func(actor Actor, err error)) { a.withheld.Store(&f) }

// Withheld is err worded for someone who may not learn where the database
// lives (one whose identity is not known yet, say): the message of every
// database failure in it without its place, and places (the database's
// path or URL) taken out of the rest. errors.Is and errors.As still see
// err; an error with nothing to withhold is returned as it is.
func Withheld(err error, places ...string) error { return dberr.Withhold(err, places...) }

// shown makes *err what the session's actor may be told (Shown): every
// method of a Session defers it, so whatever a screen shows its user of
// a failure, it says where the database lives only to those who may see it.
func (s *Session) shown(err *error) { *err = s.app.Shown(s.actor, *err) }
