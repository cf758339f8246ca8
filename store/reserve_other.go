//go:build !linux

package store

import (
	"os"
)

// allocate gives f n bytes of disk by writing zeros (where there is no
// fallocate), and truncates it back to nothing when it cannot.
func allocate(f *os.File, n int64) error {
	zeros := make([]byte, 1<<20)
	for off := int64(0); off < n; off += int64(len(zeros)) {
		if _, err := f.WriteAt(zeros[:min(int64(len(zeros)), n-off)], off); err != nil {
			_ = f.Truncate(0)
			return err
		}
	}
	return f.Sync()
}
