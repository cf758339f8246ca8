//go:build !linux

package dataset

import (
	"errors"
	"os"
)

var errDirectRefused = errors.ErrUnsupported

// setDirect has no direct I/O to turn on here: files are written through
// the page cache.
func setDirect(f *os.File, on bool) error {
	if on {
		return errors.ErrUnsupported
	}
	return nil
}
