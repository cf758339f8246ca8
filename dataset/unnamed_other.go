//go:build !linux

package dataset

import (
	"errors"
	"os"
)

// createUnnamed has no files without a name to make here.
func createUnnamed(string) (*os.File, error) { return nil, errors.ErrUnsupported }
