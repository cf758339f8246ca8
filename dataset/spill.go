package dataset

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"sync"

	"github.com/goldtrace/goldtrace/internal/fserr"
)

// spillFile holds the bytes of built record lines in a temporary file, so
// a version of hundreds of MB is never held in memory: a spilled Line keeps
// only where its bytes are. The file is removed as soon as it is made (it
// lives while open, and nothing is left behind even by a kill); where that
// is not allowed it is removed when closed.
type spillFile struct {
	f    *os.File
	name string // set while the file still has a name to remove
	w    *bufio.Writer
	size int64

	mu  sync.Mutex
	err error // the first read error: the lines read may be wrong
}

// newSpillFile makes a spill file in dir (os.TempDir when "").
func newSpillFile(dir string) (*spillFile, error) {
	f, err := os.CreateTemp(dir, ".goldtrace-export-*.spill")
	if err != nil {
		return nil, fmt.Errorf("temporary file for the records: %w", fserr.Bare(err))
	}
	s := &spillFile{f: f, name: f.Name(), w: bufio.NewWriterSize(f, 1<<20)}
	if os.Remove(s.name) == nil {
		s.name = ""
	}
	return s, nil
}

// spill writes l's bytes to the file and drops its parts from memory.
func (s *spillFile) spill(l *Line) error {
	off, n, cat := s.size, 0, 0
	for i, p := range l.Parts {
		if i == l.catPart && l.catPart > 0 {
			cat = n
		}
		k, err := s.w.Write(p)
		if err != nil {
			return fmt.Errorf("temporary file for the records: %w", fserr.Bare(err))
		}
		n += k
	}
	catLen := 0
	if l.catPart > 0 {
		catLen = len(l.Parts[l.catPart])
	}
	s.size += int64(n)
	*l = Line{ID: l.ID, Hash: l.Hash, Tool: l.Tool, Status: l.Status, GuideVersion: l.GuideVersion, Tools: l.Tools,
		catPart: l.catPart, src: s, off: off, n: n, catAt: cat, catLen: catLen}
	return nil
}

// flush makes every spilled line readable.
func (s *spillFile) flush() error {
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("temporary file for the records: %w", fserr.Bare(err))
	}
	s.w = nil
	return nil
}

// read appends the n bytes at off to dst. A read that fails is recorded
// (see Content.Err) and appends zeros.
func (s *spillFile) read(dst []byte, off int64, n int) []byte {
	start := len(dst)
	dst = slices.Grow(dst, n)[:start+n]
	if _, err := s.f.ReadAt(dst[start:], off); err != nil {
		s.mu.Lock()
		if s.err == nil {
			s.err = fmt.Errorf("read back the records: %w", fserr.Bare(err))
		}
		s.mu.Unlock()
	}
	return dst
}

func (s *spillFile) readErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// close closes the file and removes it if it still has a name.
func (s *spillFile) close() {
	s.f.Close()
	if s.name != "" {
		os.Remove(s.name)
	}
}
