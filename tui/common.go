package tui

import (
	"time"

	"github.com/goldtrace/goldtrace/store"
)

// Common is what every page and component shares, passed explicitly: the
// window size, styles, keys, the store and the clock.
type Common struct {
	Width, Height int
	Styles        Styles
	Keys          KeyMap
	Store         *store.Store
	Now           func() time.Time
}

// NewCommon is a Common over st with the default keys, styles honouring
// NO_COLOR and the wall clock.
func NewCommon(st *store.Store) *Common {
	return &Common{Styles: NewStyles(), Keys: DefaultKeyMap(), Store: st, Now: time.Now}
}

// SetSize records the window size.
func (c *Common) SetSize(w, h int) { c.Width, c.Height = w, h }
