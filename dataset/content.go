package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/goldtrace/goldtrace/gold"
)

// Content is an assembled version: its record lines in id order, which
// joined with "\n" after each are the JSONL file, and facts about them. The
// file's bytes are never joined in memory unless asked for (Bytes): they are
// written (WriteTo) and compressed (AppendPart) from the lines.
type Content struct {
	Lines  []Line // sorted by id
	Size   int    // bytes of the JSONL file
	Hashes map[string]string
	// Format is the record format of the lines (gold.RecordFormat1 or 2).
	Format int
	parts  []int    // Lines[parts[i]:parts[i+1]] is part i
	sum    *fileSum // the file's sha256, computed in the background
	spills []*spillFile
}

// Err is the first error reading back the bytes of lines BuildSpilled
// kept in a file: what was written, compressed or hashed from them may be
// wrong, and nothing made of c must be kept.
func (c Content) Err() error {
	for _, s := range c.spills {
		if err := s.readErr(); err != nil {
			return err
		}
	}
	return nil
}

// fileSum is the sha256 of a version's JSONL, computed once: by the first
// write of the whole file (WriteParts) or else by SHA256 itself.
type fileSum struct {
	mu       sync.Mutex
	changed  sync.Cond // signalled when a write that hashes ends
	promised bool      // a write will hash (HashWhileWriting)
	running  bool      // a write is hashing
	done     bool
	hex      string
}

func newFileSum() *fileSum {
	s := &fileSum{}
	s.changed.L = &s.mu
	return s
}

// start reports whether the write starting now hashes the file: the first
// one does, unless another is hashing or the sum is known.
func (s *fileSum) start() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running || s.done {
		return false
	}
	s.running, s.promised = true, false
	return true
}

// end records the sum of a write that hashed (sum is "" when it did not
// write the whole file).
func (s *fileSum) end(sum string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running = false
	if sum != "" {
		s.done, s.hex = true, sum
	}
	s.changed.Broadcast()
}

// SHA256 is the hex sha256 of the JSONL file. It is computed as the file
// is written (WriteTo, WriteParts), which it waits for when a write is
// under way or promised (HashWhileWriting); it reads the lines itself
// otherwise.
func (c Content) SHA256() string {
	s := c.sum
	s.mu.Lock()
	for (s.running || s.promised) && !s.done {
		s.changed.Wait()
	}
	if s.done {
		defer s.mu.Unlock()
		return s.hex
	}
	s.running = true
	s.mu.Unlock()
	h := sha256.New()
	c.writeParts(io.Discard, nil, h) // never fails
	sum := hex.EncodeToString(h.Sum(nil))
	s.end(sum)
	return sum
}

// HashWhileWriting promises that a write of the whole file is coming and
// computes SHA256: callers of SHA256 wait for it rather than read the
// lines a second time. done must be called once that write has returned
// (or will not happen); SHA256 reads the lines itself if it did not hash
// the whole file.
func (c Content) HashWhileWriting() (done func()) {
	s := c.sum
	s.mu.Lock()
	if !s.done && !s.running {
		s.promised = true
	}
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.promised {
			s.promised = false
			s.changed.Broadcast()
		}
	}
}

// HashesAs is the record hashes of c's lines as format writes them
// (Line.HashAs): c.Hashes unless format is older than c's (0 means c's).
// Equal to a version's record hashes, item id → RecordHash, the content
// is that version's records: byte for byte when the formats are equal.
func (c Content) HashesAs(format int) map[string]string {
	if format == 0 || format >= c.Format {
		return c.Hashes
	}
	out := make(map[string]string, len(c.Lines))
	for i := range c.Lines {
		out[c.Lines[i].ID] = c.Lines[i].HashAs(format)
	}
	return out
}

// contentPartSize is about how many bytes of lines one part holds.
const contentPartSize = 4 << 20

// Assemble sorts lines by id, rejects duplicates, and computes the record
// hashes of a version's JSONL (the file's as it is written: see SHA256).
func Assemble(lines []Line) (Content, error) {
	sort.Slice(lines, func(i, j int) bool { return lines[i].ID < lines[j].ID })
	c := Content{Lines: lines, Hashes: make(map[string]string, len(lines)), Format: gold.RecordFormat1, parts: []int{0}, sum: newFileSum()}
	if len(lines) > 0 && lines[0].catPart > 0 {
		c.Format = gold.RecordFormat2 // a Builder writes every line of a version in one format
	}
	partSize := 0
	for i := range lines {
		l := &lines[i]
		if i > 0 && lines[i-1].ID == l.ID {
			return Content{}, fmt.Errorf("item %s appears twice", l.ID)
		}
		if l.src != nil && !slices.Contains(c.spills, l.src) {
			c.spills = append(c.spills, l.src)
		}
		if l.Hash == "" {
			l.Hash = RecordHash(l.Bytes())
		}
		c.Hashes[l.ID] = l.Hash
		n := l.Len()
		if partSize > 0 && partSize+n >= contentPartSize {
			c.parts = append(c.parts, i)
			partSize = 0
		}
		partSize += n + 1
		c.Size += n + 1
	}
	if len(lines) > 0 {
		c.parts = append(c.parts, len(lines))
	}
	return c, nil
}

var newline = []byte{'\n'}

// WriteTo writes the JSONL file to w.
func (c Content) WriteTo(w io.Writer) (int64, error) {
	return c.WriteParts(w, nil)
}

// contentBuffers is how many parts a write holds at most: the one being
// written and those handed over and not yet released (as many as a
// compressor on two cores reads at once).
const contentBuffers = 3

// WriteParts writes the JSONL file to w part by part (see NumParts), each
// part read once for the file, its sha256 (unless already known or being
// computed: see SHA256) and give, when not nil: give(i, part, release)
// gets part i as soon as it is read, to read alongside the write, and
// calls release once it no longer reads it (from any goroutine, even after
// WriteParts has returned). A read of a part waits while the parts held
// are more than contentBuffers.
func (c Content) WriteParts(w io.Writer, give func(i int, part []byte, release func())) (int64, error) {
	if !c.sum.start() {
		return c.writeParts(w, give, nil)
	}
	h := sha256.New()
	n, err := c.writeParts(w, give, h)
	if n < int64(c.Size) {
		c.sum.end("") // SHA256 reads the lines itself
	} else {
		c.sum.end(hex.EncodeToString(h.Sum(nil)))
	}
	return n, err
}

// writeParts is WriteParts, hashing the file into h when it is not nil.
func (c Content) writeParts(w io.Writer, give func(i int, part []byte, release func()), h hash.Hash) (int64, error) {
	free := make(chan []byte, contentBuffers)
	for range contentBuffers {
		free <- nil
	}
	n := int64(0)
	for i := range c.NumParts() {
		part := c.AppendPart(i, (<-free)[:0])
		users := int32(1)
		if give != nil {
			users = 2
		}
		release := func() {
			if atomic.AddInt32(&users, -1) == 0 {
				free <- part
			}
		}
		if give != nil {
			give(i, part, release)
		}
		if h != nil {
			h.Write(part)
		}
		k, err := w.Write(part)
		release()
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, c.Err()
}

// Bytes returns the JSONL file in one slice.
func (c Content) Bytes() []byte {
	out := make([]byte, 0, c.Size)
	for i := range c.NumParts() {
		out = c.AppendPart(i, out)
	}
	return out
}

// NumParts is the number of consecutive parts of a few MiB the JSONL
// is cut into (at line ends), to be compressed in parallel.
func (c Content) NumParts() int { return max(0, len(c.parts)-1) }

// AppendPart appends part i of the JSONL to dst.
func (c Content) AppendPart(i int, dst []byte) []byte {
	lines := c.Lines[c.parts[i]:c.parts[i+1]]
	n := 0
	for j := range lines {
		n += lines[j].Len() + 1
	}
	dst = slices.Grow(dst, n)
	for j := range lines {
		dst = append(lines[j].AppendTo(dst), '\n')
	}
	return dst
}
