package dataset

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"sort"

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

type fileSum struct {
	done chan struct{}
	hex  string
}

// SHA256 is the hex sha256 of the JSONL file. Assemble starts computing it
// in the background; SHA256 waits for it.
func (c Content) SHA256() string {
	<-c.sum.done
	return c.sum.hex
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

// Assemble sorts lines by id, rejects duplicates, and computes the hashes
// of a version's JSONL (the file's in the background: see SHA256).
func Assemble(lines []Line) (Content, error) {
	sort.Slice(lines, func(i, j int) bool { return lines[i].ID < lines[j].ID })
	c := Content{Lines: lines, Hashes: make(map[string]string, len(lines)), Format: gold.RecordFormat1, parts: []int{0}, sum: &fileSum{done: make(chan struct{})}}
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
	go func() {
		defer close(c.sum.done)
		h := sha256.New()
		var buf []byte
		for i := range lines {
			if lines[i].src != nil {
				buf = lines[i].AppendTo(buf[:0])
				h.Write(buf)
			}
			for _, p := range lines[i].Parts {
				h.Write(p)
			}
			h.Write(newline)
		}
		c.sum.hex = hex.EncodeToString(h.Sum(nil))
	}()
	return c, nil
}

var newline = []byte{'\n'}

// WriteTo writes the JSONL file to w.
func (c Content) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	n := int64(0)
	var buf []byte
	for i := range c.Lines {
		l := &c.Lines[i]
		if l.src != nil {
			buf = l.AppendTo(buf[:0])
			k, _ := bw.Write(buf)
			n += int64(k)
		}
		for _, p := range l.Parts {
			k, _ := bw.Write(p)
			n += int64(k)
		}
		bw.WriteByte('\n')
		n++
	}
	if err := bw.Flush(); err != nil {
		return 0, err
	}
	if err := c.Err(); err != nil {
		return 0, err
	}
	return n, nil
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
