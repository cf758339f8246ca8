package source

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// object is one Parquet file of a source.
type object struct {
	name    string // as shown to users: a path, or s3://bucket/key
	size    int64
	version string // what identifies this content: an ETag, or the mtime
	open    func() (io.ReaderAt, io.Closer, error)
}

// IsSource says whether spec names a source of this package rather than a
// JSON Lines trace file: postgres://… (Phoenix), s3://bucket/prefix, a
// .parquet file, a directory, or a glob.
func IsSource(spec string) bool {
	if IsS3(spec) || IsPostgres(spec) {
		return true
	}
	if spec == "-" {
		return false
	}
	if strings.HasSuffix(strings.ToLower(spec), ".parquet") {
		return true
	}
	if fi, err := os.Stat(spec); err == nil {
		return fi.IsDir()
	}
	return hasGlob(spec)
}

func hasGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// localObjects lists the Parquet files spec names: a file, a directory
// (walked, partition directories such as dt=2026-11-01/ included, files
// starting with . or _ skipped) or a glob, in name order.
func localObjects(spec string, stats *readStats) ([]object, error) {
	var paths []string
	switch fi, err := os.Stat(spec); {
	case err == nil && fi.IsDir():
		err := filepath.WalkDir(spec, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			base := d.Name()
			if p != spec && (strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_")) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.IsDir() && strings.HasSuffix(strings.ToLower(base), ".parquet") {
				paths = append(paths, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", spec, bareFSError(err))
		}
		if len(paths) == 0 {
			return nil, fmt.Errorf("%s: no .parquet files in this directory", spec)
		}
	case err == nil:
		paths = []string{spec}
	case hasGlob(spec):
		m, gerr := filepath.Glob(spec)
		if gerr != nil {
			return nil, fmt.Errorf("%s: %w", spec, gerr)
		}
		for _, p := range m {
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				paths = append(paths, p)
			}
		}
		if len(paths) == 0 {
			return nil, fmt.Errorf("%s: no files match", spec)
		}
	default:
		return nil, fmt.Errorf("%s: %w", spec, bareFSError(err))
	}
	sort.Strings(paths)
	out := make([]object, 0, len(paths))
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, bareFSError(err))
		}
		p := p
		out = append(out, object{name: p, size: fi.Size(), version: fi.ModTime().UTC().Format(time.RFC3339Nano),
			open: func() (io.ReaderAt, io.Closer, error) {
				f, err := os.Open(p)
				if err != nil {
					return nil, nil, fmt.Errorf("%s: %w", p, bareFSError(err))
				}
				return countingReaderAt{f, stats}, f, nil
			}})
	}
	return out, nil
}

// bareFSError is err without the path os wraps it with (callers name it).
func bareFSError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, fs.ErrNotExist) {
			return errors.New("no such file or directory")
		}
		return pe.Err
	}
	return err
}

// countingReaderAt counts its reads and the bytes they return in n.
type countingReaderAt struct {
	r io.ReaderAt
	n *readStats
}

func (c countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	k, err := c.r.ReadAt(p, off)
	c.n.bytes.Add(int64(k))
	c.n.requests.Add(1)
	return k, err
}
