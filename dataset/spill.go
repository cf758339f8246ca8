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
// only where its bytes are. The file has no name (it lives while open, and
// nothing is left behind even by a kill): made without one where the file
// system allows it, else removed as soon as it is made, or where that is
// not allowed when closed.
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
	if f, err := createUnnamed(dir); err == nil {
		return &spillFile{f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
	}
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
// With shared, its tools and catalogue parts (shared by the records of
// many traces, most of each record's bytes) stay in memory and only the
// record's own bytes are written.
func (s *spillFile) spill(l *Line, shared bool) error {
	off, n := s.size, 0
	var memTools, memCat []byte
	if shared {
		memTools, memCat = l.Parts[lineToolsPart], l.Parts[lineCatPart]
	}
	split, cat, catLen := 0, 0, 0
	for i, p := range l.Parts {
		if i == lineToolsPart {
			split = n
		}
		if i == l.catPart && l.catPart > 0 {
			cat, catLen = n, len(p)
		}
		if shared && (i == lineToolsPart || i == lineCatPart) {
			continue
		}
		k, err := s.w.Write(p)
		if err != nil {
			return fmt.Errorf("temporary file for the records: %w", fserr.Bare(err))
		}
		n += k
	}
	if !shared {
		split = n // everything is in the file
	} else if catLen > 0 {
		cat = split + len(memTools)
	}
	s.size += int64(n)
	*l = Line{ID: l.ID, Hash: l.Hash, Tool: l.Tool, Status: l.Status, GuideVersion: l.GuideVersion, Tools: l.Tools,
		catPart: l.catPart, src: s, off: off, n: n, split: split, memTools: memTools, memCat: memCat, catAt: cat, catLen: catLen}
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

// read appends l's bytes to dst: its n bytes in the file at off with its
// shared parts, if it has any, put in at split. A read that fails is
// recorded (see Content.Err) and appends zeros.
func (s *spillFile) read(dst []byte, l *Line) []byte {
	start, shared := len(dst), len(l.memTools)+len(l.memCat)
	dst = slices.Grow(dst, l.n+shared)[:start+l.n+shared]
	// Read so that the bytes after split land where they belong; those
	// before it move to the front and the shared parts fill the gap.
	if _, err := s.f.ReadAt(dst[start+shared:], l.off); err != nil {
		s.mu.Lock()
		if s.err == nil {
			s.err = fmt.Errorf("read back the records: %w", fserr.Bare(err))
		}
		s.mu.Unlock()
	}
	if shared > 0 {
		copy(dst[start:], dst[start+shared:start+shared+l.split])
		copy(dst[start+l.split+copy(dst[start+l.split:], l.memTools):], l.memCat)
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
