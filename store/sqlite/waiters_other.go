//go:build !unix

package sqlite

import (
	"errors"
	"os"
)

var errNoFlock = errors.New("no flock here")

// Without flock no waiter can be seen: bulk writers always pause.
func lockShared(*os.File) error               { return errNoFlock }
func tryLockExclusive(*os.File) (bool, error) { return false, errNoFlock }
func unlock(*os.File)                         {}
