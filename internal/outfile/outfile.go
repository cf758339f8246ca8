// Package outfile writes a command's output file all or nothing: through a
// temporary file beside it, renamed into place once everything is written,
// so a failed or interrupted run leaves no half-written file. Stdout ("-")
// and devices or pipes (/dev/null, /dev/stdout, a FIFO) are written as they
// are.
package outfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/goldtrace/goldtrace/internal/fserr"
)

// Write writes what fill writes to path ("" or "-": to stdout). fill's
// writer is buffered; Write flushes it. The file is replaced atomically
// and readable by others (0644): an output file, not a secret.
func Write(path string, stdout io.Writer, fill func(w io.Writer) error) error {
	switch {
	case path == "" || path == "-":
		return buffered(stdout, fill)
	case NotRegular(path):
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		if err := buffered(f, fill); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("cannot create a file in %s: %w", filepath.Dir(path), fserr.Bare(err))
	}
	defer os.Remove(tmp.Name()) // gone once renamed; removed on failure
	err = tmp.Chmod(0o644)      // CreateTemp makes the file private
	if err == nil {
		err = buffered(tmp, fill)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func buffered(w io.Writer, fill func(w io.Writer) error) error {
	bw := bufio.NewWriter(w)
	if err := fill(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// NotRegular reports whether path exists and is not a regular file: a
// device (/dev/null, /dev/stdout) or a named pipe. Such an output is
// written in place: the temp-file-and-rename that makes a file's
// replacement atomic would replace the device itself (as root, --out
// /dev/null would leave a plain file there for every process).
func NotRegular(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.Mode().IsRegular() && !fi.IsDir()
}
