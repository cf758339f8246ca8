package dataset

import (
	"errors"
	"os"
	"unsafe"
)

// directChunk is how many bytes a directWriter writes at a time.
const directChunk = 1 << 20

// directAlign is the alignment of a direct write's memory, offset and size.
const directAlign = 4096

// directWriter writes a large file past the page cache (direct I/O, where
// the system and file system allow it; through the page cache otherwise),
// in aligned chunks. A version's file is fsynced once written: copying
// hundreds of MB into the page cache only for the fsync to write it all
// out costs more CPU than the rest of writing the file, and fills the
// cache with pages nothing reads.
type directWriter struct {
	f      *os.File
	buf    []byte // directChunk bytes, aligned to directAlign
	n      int    // bytes of buf in use
	direct bool
}

func newDirectWriter(f *os.File) *directWriter {
	raw := make([]byte, directChunk+directAlign)
	off := 0
	if r := int(uintptr(unsafe.Pointer(&raw[0])) % directAlign); r != 0 {
		off = directAlign - r
	}
	return &directWriter{f: f, buf: raw[off : off+directChunk], direct: setDirect(f, true) == nil}
}

// Write buffers p, writing whole chunks (direct or not: a file system
// without direct I/O still gets few large writes).
func (w *directWriter) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 {
		k := copy(w.buf[w.n:], p)
		w.n, p, written = w.n+k, p[k:], written+k
		if w.n == len(w.buf) {
			if err := w.flushChunk(); err != nil {
				return written, err
			}
		}
	}
	return written, nil
}

// flushChunk writes the full buffer, through the page cache from then on
// if direct I/O is refused.
func (w *directWriter) flushChunk() error {
	_, err := w.f.Write(w.buf)
	if w.direct && errors.Is(err, errDirectRefused) {
		w.direct = false
		if err = setDirect(w.f, false); err == nil {
			_, err = w.f.Write(w.buf)
		}
	}
	w.n = 0
	return err
}

// Close writes the rest, shorter than a chunk, through the page cache (a
// direct write's size is a multiple of directAlign). It leaves the file
// open.
func (w *directWriter) Close() error {
	if w.direct {
		w.direct = false
		if err := setDirect(w.f, false); err != nil {
			return err
		}
	}
	_, err := w.f.Write(w.buf[:w.n])
	w.n = 0
	return err
}
