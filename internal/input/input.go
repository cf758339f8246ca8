// Package input opens the files goldtrace reads (a path named on the
// command line, or "-" for stdin) and counts the bytes read from them,
// with errors worded for a line that already names the file.
package input

import (
	"compress/gzip"
	"errors"
	"io"
	"os"
	"strings"

	"github.com/goldtrace/goldtrace/internal/fserr"
)

// Open opens path for reading ("-" is stdin, which Close leaves open) and
// says its size when it is a regular file (0 otherwise: stdin, a pipe, a
// device). Errors read "no such file", "is a directory" and the like,
// without the path.
func Open(path string, stdin io.Reader) (r io.ReadCloser, size int64, err error) {
	if path == "-" {
		return io.NopCloser(stdin), 0, nil
	}
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, 0, errors.New("no such file")
		}
		return nil, 0, fserr.Bare(err)
	}
	fi, err := f.Stat()
	if err == nil && fi.IsDir() {
		f.Close()
		return nil, 0, errors.New("is a directory")
	}
	if err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	return f, size, nil
}

// OpenData is Open for a data file that may be compressed: a path ending
// in .gz is decompressed.
func OpenData(path string, stdin io.Reader) (io.ReadCloser, error) {
	f, _, err := Open(path, stdin)
	if err != nil || !strings.HasSuffix(path, ".gz") {
		return f, err
	}
	gz, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return gunzipped{gz, f}, nil
}

type gunzipped struct {
	*gzip.Reader
	f io.Closer
}

func (g gunzipped) Close() error { return errors.Join(g.Reader.Close(), g.f.Close()) }

// Counted reads r, telling add how many bytes each read returned.
func Counted(r io.Reader, add func(n int64)) io.Reader { return counted{r, add} }

type counted struct {
	r   io.Reader
	add func(n int64)
}

func (c counted) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.add(int64(n))
	return n, err
}
