package dataset

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/goldtrace/goldtrace/internal/fserr"
)

// StagedFiles are files written completely (and fsynced) under temporary
// names in their final directory, put in place by Commit or removed by
// Abort: a reader never sees a half-written file.
type StagedFiles struct {
	files []stagedFile
	dirs  []string // directories made for the files, removed by Abort
}

// mkdirs makes dir (below root) and its missing parents, remembering them.
func (s *StagedFiles) mkdirs(root, dir string) error {
	var missing []string
	for d := dir; d != root && d != "." && d != string(filepath.Separator); d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o755); err != nil && !os.IsExist(err) {
			return fmt.Errorf("--out: make %s: %w", missing[i], fserr.Bare(err))
		}
		s.dirs = append(s.dirs, missing[i])
	}
	return nil
}

type stagedFile struct{ tmp, final string }

// add writes a temporary file beside final with write and fsyncs it;
// large, a file is best written direct (see directWriter).
func (s *StagedFiles) add(final string, large bool, write func(io.Writer) error) error {
	dir := filepath.Dir(final)
	f, err := os.CreateTemp(dir, "."+filepath.Base(final)+".tmp-*")
	if err != nil {
		return fmt.Errorf("--out %s is not writable: %w", dir, fserr.Bare(err))
	}
	s.files = append(s.files, stagedFile{tmp: f.Name(), final: final})
	if large {
		dw := newDirectWriter(f)
		err = write(dw)
		if cerr := dw.Close(); err == nil {
			err = cerr
		}
	} else {
		err = write(f)
	}
	if err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", final, fserr.Bare(err))
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync %s: %w", final, fserr.Bare(err))
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return fmt.Errorf("chmod %s: %w", final, fserr.Bare(err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", final, fserr.Bare(err))
	}
	return nil
}

// Commit renames every file into place, then fsyncs the directories, and
// returns the final paths.
func (s *StagedFiles) Commit() ([]string, error) {
	var paths []string
	for i, f := range s.files {
		if err := os.Rename(f.tmp, f.final); err != nil {
			for _, rest := range s.files[i:] {
				os.Remove(rest.tmp)
			}
			return paths, fmt.Errorf("rename %s: %w", f.final, fserr.Bare(err))
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

// Abort removes the temporary files.
func (s *StagedFiles) Abort() {
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

// StageVersionFiles writes the canonical JSONL (content), the files of any
// other formats and the manifest of a version to temporary files in dir
// (content is written once per file). manifest blocks until the manifest is
// made: the canonical file is written meanwhile, the formats (some of which
// describe the version) and the manifest after it. A new version refuses to
// replace files already there; a re-materialised one restores them.
// The caller Commits or Aborts what was staged.
func StageVersionFiles(dir, name string, version int, content io.WriterTo, manifest func() ([]byte, error), formats []string, replace bool) (*StagedFiles, error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("--out %s is a file, not a directory", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--out %s: %w", dir, fserr.Bare(err))
	}
	var others []FormatFile
	for _, f := range slices.Compact(slices.Sorted(slices.Values(formats))) {
		if f == "jsonl" {
			continue
		}
		files, err := FormatFiles(name, version, f)
		if err != nil {
			return nil, err
		}
		others = append(others, files...)
	}
	// The manifest comes last: once it is in place, so is what it describes.
	names := []string{FileName(name, version)}
	for _, f := range others {
		names = append(names, filepath.FromSlash(f.Path))
	}
	names = append(names, ManifestName(name, version))
	for _, n := range names {
		final := filepath.Join(dir, n)
		if _, err := os.Lstat(final); err == nil && !replace {
			return nil, fmt.Errorf("%s already exists, but v%d of %s is new in this database: move it away or choose another --out", final, version, name)
		}
	}
	staged := &StagedFiles{}
	fail := func(err error) (*StagedFiles, error) {
		staged.Abort()
		return nil, err
	}
	if err := staged.add(filepath.Join(dir, names[0]), true, func(w io.Writer) error { _, err := content.WriteTo(w); return err }); err != nil {
		return fail(err)
	}
	mb, err := manifest()
	if err != nil {
		return fail(err)
	}
	var m *Manifest
	if len(others) > 0 {
		parsed, err := ParseManifest(mb)
		if err != nil {
			return fail(fmt.Errorf("manifest of %s v%d: %w", name, version, err))
		}
		m = &parsed
	}
	for _, f := range others {
		final := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := staged.mkdirs(dir, filepath.Dir(final)); err != nil {
			return fail(err)
		}
		err := staged.add(final, true, func(w io.Writer) error {
			// The JSONL streams through a pipe into the converter.
			// The writer is waited for before the next file: two of them
			// never run at once, and none outlives the staging.
			pr, pw := io.Pipe()
			done := make(chan struct{})
			go func() {
				defer close(done)
				_, err := content.WriteTo(pw)
				pw.CloseWithError(err)
			}()
			err := f.Write(w, pr, m)
			pr.CloseWithError(errors.New("format conversion stopped")) // ends the writer if it is still writing
			<-done
			if err != nil {
				return fmt.Errorf("format %s: %w", f.Path, err)
			}
			return nil
		})
		if err != nil {
			return fail(err)
		}
	}
	if err := staged.add(filepath.Join(dir, names[len(names)-1]), false, func(w io.Writer) error { _, err := w.Write(mb); return err }); err != nil {
		return fail(err)
	}
	return staged, nil
}
