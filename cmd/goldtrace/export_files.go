package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// stagedFiles are files written completely (and fsynced) under temporary
// names in their final directory, put in place by commit or removed by
// abort: a reader never sees a half-written file.
type stagedFiles struct {
	files []stagedFile
	dirs  []string // directories made for the files, removed by abort
}

// mkdirs makes dir (below root) and its missing parents, remembering them.
func (s *stagedFiles) mkdirs(root, dir string) error {
	var missing []string
	for d := dir; d != root && d != "." && d != string(filepath.Separator); d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o755); err != nil && !os.IsExist(err) {
			return fmt.Errorf("--out: make %s: %w", missing[i], unwrapPath(err))
		}
		s.dirs = append(s.dirs, missing[i])
	}
	return nil
}

type stagedFile struct{ tmp, final string }

// add writes a temporary file beside final with write and fsyncs it.
func (s *stagedFiles) add(final string, write func(io.Writer) error) error {
	dir := filepath.Dir(final)
	f, err := os.CreateTemp(dir, "."+filepath.Base(final)+".tmp-*")
	if err != nil {
		return fmt.Errorf("--out %s is not writable: %w", dir, unwrapPath(err))
	}
	s.files = append(s.files, stagedFile{tmp: f.Name(), final: final})
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", final, unwrapPath(err))
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync %s: %w", final, unwrapPath(err))
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return fmt.Errorf("chmod %s: %w", final, unwrapPath(err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", final, unwrapPath(err))
	}
	return nil
}

// commit renames every file into place, then fsyncs the directories, and
// returns the final paths.
func (s *stagedFiles) commit() ([]string, error) {
	var paths []string
	for i, f := range s.files {
		if err := os.Rename(f.tmp, f.final); err != nil {
			for _, rest := range s.files[i:] {
				os.Remove(rest.tmp)
			}
			return paths, fmt.Errorf("rename %s: %w", f.final, unwrapPath(err))
		}
		paths = append(paths, f.final)
	}
	dirs := map[string]bool{}
	for _, f := range s.files {
		dirs[filepath.Dir(f.final)] = true
	}
	for d := range dirs {
		if err := syncDir(d); err != nil {
			return paths, err
		}
	}
	return paths, nil
}

// abort removes the temporary files.
func (s *stagedFiles) abort() {
	for _, f := range s.files {
		os.Remove(f.tmp)
	}
	for i := len(s.dirs) - 1; i >= 0; i-- {
		os.Remove(s.dirs[i]) // only when empty
	}
	s.files, s.dirs = nil, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// unwrapPath drops the *PathError wrapper (its path is already named).
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
