package dataset

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// severalParts is a content of a few parts (about 12 MB) and its bytes.
func severalParts(t *testing.T) (Content, []byte) {
	t.Helper()
	lines := make([]Line, 3000)
	var want bytes.Buffer
	for i := range lines {
		id := fmt.Sprintf("it_%016x", i)
		lines[i] = Line{ID: id, Parts: [][]byte{append([]byte(`{"id":"`+id+`","pad":"`), bytes.Repeat([]byte{'a' + byte(i%26)}, 4000)...)}}
		want.Write(lines[i].Bytes())
		want.WriteByte('\n')
	}
	c, err := Assemble(lines)
	if err != nil {
		t.Fatal(err)
	}
	if c.NumParts() < 3 {
		t.Fatalf("%d parts, want several", c.NumParts())
	}
	return c, want.Bytes()
}

func TestWritePartsHandsEachPartOverAsItIsWritten(t *testing.T) {
	c, want := severalParts(t)
	sum := sha256.Sum256(want)
	done := c.HashWhileWriting()
	// The manifest asks for the sum before the file is written: it waits
	// for the write's.
	got := make(chan string)
	go func() { got <- c.SHA256() }()
	var mu sync.Mutex
	given := map[int][]byte{}
	var releases sync.WaitGroup
	var file bytes.Buffer
	n, err := c.WriteParts(&file, func(i int, part []byte, release func()) {
		releases.Add(1)
		go func() { // released later, elsewhere, as a compressor does
			defer releases.Done()
			mu.Lock()
			given[i] = bytes.Clone(part)
			mu.Unlock()
			release()
		}()
	})
	done()
	releases.Wait()
	if err != nil || n != int64(len(want)) || !bytes.Equal(file.Bytes(), want) {
		t.Fatalf("wrote %d bytes (%v), want the %d of the content", n, err, len(want))
	}
	var joined []byte
	for i := range c.NumParts() {
		if !bytes.Equal(given[i], c.AppendPart(i, nil)) {
			t.Fatalf("part %d handed over differs from the content's", i)
		}
		joined = append(joined, given[i]...)
	}
	if len(given) != c.NumParts() || !bytes.Equal(joined, want) {
		t.Fatalf("%d parts handed over, joining to %d bytes; want %d parts, %d bytes", len(given), len(joined), c.NumParts(), len(want))
	}
	if s := <-got; s != hex.EncodeToString(sum[:]) {
		t.Fatalf("SHA256 while writing: %s", s)
	}
	// Written again (another format's file): the same bytes, nothing
	// handed over without give.
	var again bytes.Buffer
	if _, err := c.WriteTo(&again); err != nil || !bytes.Equal(again.Bytes(), want) {
		t.Fatalf("second write: %v", err)
	}
}

// failingWriter takes n bytes, then fails.
type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, errors.New("disk full")
	}
	w.n -= len(p)
	return len(p), nil
}

func TestSHA256OfAContentWhoseWriteFailedOrNeverCame(t *testing.T) {
	c, want := severalParts(t)
	sum := sha256.Sum256(want)
	done := c.HashWhileWriting()
	got := make(chan string)
	go func() { got <- c.SHA256() }()
	released := 0
	var mu sync.Mutex
	_, err := c.WriteParts(&failingWriter{n: len(want) / 2}, func(i int, part []byte, release func()) {
		mu.Lock()
		released++
		mu.Unlock()
		release()
	})
	if err == nil {
		t.Fatal("a failed write returned no error")
	}
	done()
	if s := <-got; s != hex.EncodeToString(sum[:]) {
		t.Fatalf("SHA256 after a failed write: %s", s)
	}
	if released == 0 || released >= c.NumParts() {
		t.Fatalf("%d parts handed over by a write that failed half-way", released)
	}
	// Promised, but the write never came: SHA256 reads the lines itself.
	c2, _ := severalParts(t)
	c2.HashWhileWriting()()
	if s := c2.SHA256(); s != hex.EncodeToString(sum[:]) {
		t.Fatalf("SHA256 without a write: %s", s)
	}
}

func TestDirectWriterWritesTheSameBytes(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	dir := t.TempDir()
	// Both ways: direct, and through the page cache (a file system
	// without direct I/O).
	for i, size := range []int{0, 1, directAlign - 1, directChunk - 1, directChunk, directChunk + 1, 3*directChunk + directAlign + 5,
		0, 1, directChunk - 1, directChunk, 2*directChunk + 3} {
		data := make([]byte, size)
		rng.Read(data)
		path := filepath.Join(dir, fmt.Sprintf("f%d", i))
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w := newDirectWriter(f)
		if i >= 7 && w.direct {
			if err := setDirect(f, false); err != nil {
				t.Fatal(err)
			}
			w.direct = false
		}
		// Written in uneven pieces, as parts of lines are.
		for rest := data; len(rest) > 0; {
			k := min(len(rest), 1+rng.Intn(directChunk/3))
			if n, err := w.Write(rest[:k]); err != nil || n != k {
				t.Fatalf("size %d: wrote %d of %d: %v", size, n, k, err)
			}
			rest = rest[k:]
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		// Written through the page cache after Close, as any file.
		if _, err := io.WriteString(f, "end"); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, append(data, "end"...)) {
			t.Fatalf("size %d: read back %d bytes (%v)", size, len(got), err)
		}
	}
}
