//go:build linux

package dataset

import (
	"os"

	"golang.org/x/sys/unix"
)

// errDirectRefused is what a direct write returns when the file system
// takes direct I/O but not this write's alignment.
var errDirectRefused = unix.EINVAL

// setDirect turns direct I/O (O_DIRECT) on or off for f; a file system
// without it refuses.
func setDirect(f *os.File, on bool) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	err = rc.Control(func(fd uintptr) {
		flags, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		if err != nil {
			ferr = err
			return
		}
		if on {
			flags |= unix.O_DIRECT
		} else {
			flags &^= unix.O_DIRECT
		}
		_, ferr = unix.FcntlInt(fd, unix.F_SETFL, flags)
	})
	if err != nil {
		return err
	}
	return ferr
}
