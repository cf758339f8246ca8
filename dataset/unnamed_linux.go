//go:build linux

package dataset

import (
	"os"

	"golang.org/x/sys/unix"
)

// createUnnamed makes a file in dir that has no name (O_TMPFILE): it
// exists while open, and nothing is left of it however the process ends.
// Not every file system has them.
func createUnnamed(dir string) (*os.File, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	return os.OpenFile(dir, os.O_RDWR|unix.O_TMPFILE, 0o600)
}
