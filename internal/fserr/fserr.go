// Package fserr words file-system errors for messages that already name
// the file.
package fserr

import (
	"errors"
	"io/fs"
)

// Bare drops the *fs.PathError wrapper ("open x.jsonl: no such file or
// directory" becomes "no such file or directory"): the message it goes into
// names the path already.
func Bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
