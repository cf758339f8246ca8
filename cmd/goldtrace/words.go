package main

import (
	"fmt"
	"io"
	"os"
)

// countNoun is n with its noun in the right number: "1 label", "3 labels".
func countNoun(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// notRegular reports whether path exists and is not a regular file: a
// device (/dev/null, /dev/stdout) or a named pipe. Such an output is
// written in place (writeInPlace): the temp-file-and-rename that makes a
// file's replacement atomic would replace the device itself (as root,
// --out /dev/null would leave a plain file there for every process).
func notRegular(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.Mode().IsRegular() && !fi.IsDir()
}

// writeInPlace opens path, which notRegular accepted, and writes fill to it.
func writeInPlace(path string, fill func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if err := fill(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
