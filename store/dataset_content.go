package store

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Content encodings of datasets.content. An export writes zstd; versions
// written as gzip (or identity) by an older goldtrace are read as they are.
const (
	contentIdentity = "identity"
	contentGzip     = "gzip"
	contentZstd     = "zstd"
)

// Parts is the content of a version in consecutive parts, which the store
// compresses in parallel without joining them first: AppendPart appends
// part i to dst. dataset.Content is one.
type Parts interface {
	NumParts() int
	AppendPart(i int, dst []byte) []byte
}

// Compressed is the content of a version as the store keeps it, one zstd
// frame per dataset_parts row; only a Compressor makes one. The frames
// are kept apart, never joined: a large version's compressed bytes are
// held once.
type Compressed struct {
	members [][]byte
}

// CompressContent compresses content for StagedVersion.Complete. It needs no
// database, so an export runs it alongside other work.
func CompressContent(content Parts) (Compressed, error) {
	members, err := compressContent(content)
	return Compressed{members}, err
}

// compressContent compresses content through a Compressor, reading its
// parts in turn.
func compressContent(content Parts) ([][]byte, error) {
	n := content.NumParts()
	z := NewCompressor(n)
	free := make(chan []byte, runtime.GOMAXPROCS(0)+1) // the part being read and one per worker
	for range cap(free) {
		free <- nil
	}
	for i := range n {
		part := content.AppendPart(i, (<-free)[:0])
		z.Add(i, part, func() { free <- part })
	}
	c, err := z.Close()
	return c.members, err
}

// Compressor compresses a version's content with zstd (its fastest level)
// as its parts are handed over, each part as one zstd frame, on up to
// GOMAXPROCS goroutines; the frames concatenated are one valid zstd stream
// (RFC 8878 decoders, zstd -d among them, join consecutive frames), and
// decompressing gives the joined parts back exactly. The same parts give
// the same bytes however they are handed over.
//
// zstd rather than gzip (which versions written before it hold): on an
// export's JSONL it takes about half the CPU time of gzip at BestSpeed and
// makes a third of the bytes, so the store writes less, and reading a
// version back decompresses faster.
type Compressor struct {
	jobs    chan compressJob
	members [][]byte
	errs    []error
	wg      sync.WaitGroup
}

type compressJob struct {
	i       int
	part    []byte
	release func()
}

// NewCompressor starts compressing a content of n parts (none: one empty
// member).
func NewCompressor(n int) *Compressor {
	z := &Compressor{jobs: make(chan compressJob, max(1, n)), members: make([][]byte, max(1, n)), errs: make([]error, max(1, n))}
	for range min(max(1, n), runtime.GOMAXPROCS(0)) {
		z.wg.Add(1)
		go z.work()
	}
	if n == 0 {
		z.jobs <- compressJob{i: 0, release: func() {}}
	}
	return z
}

// Add hands part i over; release is called once the Compressor no longer
// reads part. It never blocks.
func (z *Compressor) Add(i int, part []byte, release func()) {
	z.jobs <- compressJob{i, part, release}
}

// Close waits for the parts handed over to be compressed and returns the
// content; an error if a part was never handed over. Add must not be
// called after it.
func (z *Compressor) Close() (Compressed, error) {
	close(z.jobs)
	z.wg.Wait()
	for i, m := range z.members {
		if z.errs[i] != nil {
			return Compressed{}, fmt.Errorf("compress content: %w", z.errs[i])
		}
		if m == nil {
			return Compressed{}, fmt.Errorf("compress content: part %d of %d was not written", i+1, len(z.members))
		}
	}
	return Compressed{z.members}, nil
}

func (z *Compressor) work() {
	defer z.wg.Done()
	// One encoder per worker, reused for every part; EncodeAll writes each
	// part as a whole frame (its size in the header), so a part's frame
	// depends on nothing but the part.
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
		zstd.WithLowerEncoderMem(true))
	if err != nil { // only for invalid options
		for j := range z.jobs {
			j.release()
			z.errs[j.i] = err
		}
		return
	}
	defer enc.Close()
	var buf []byte
	for j := range z.jobs {
		buf = enc.EncodeAll(j.part, buf[:0])
		j.release()
		z.members[j.i] = bytes.Clone(buf)
	}
}

// newZstdReader decompresses stored zstd content (frames joined) as it is
// read, on the reader's goroutine, in little memory.
func newZstdReader(r io.Reader) (io.ReadCloser, error) {
	zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	if err != nil {
		return nil, err
	}
	return zr.IOReadCloser(), nil
}

// decodeContent returns the JSONL bytes of a content BLOB stored with
// encoding.
func decodeContent(encoding string, blob []byte) ([]byte, error) {
	switch encoding {
	case contentIdentity:
		return blob, nil
	case contentGzip:
		zr, err := gzip.NewReader(bytes.NewReader(blob))
		if err != nil {
			return nil, fmt.Errorf("decompress content: %w", err)
		}
		var out bytes.Buffer
		out.Grow(4 * len(blob))
		if _, err := io.Copy(&out, zr); err != nil {
			return nil, fmt.Errorf("decompress content: %w", err)
		}
		if err := zr.Close(); err != nil {
			return nil, fmt.Errorf("decompress content: %w", err)
		}
		return out.Bytes(), nil
	case contentZstd:
		return decodeZstd(blob)
	default:
		return nil, fmt.Errorf("content encoding %q is not known to this goldtrace", encoding)
	}
}

// decodeZstd decodes stored zstd content whole into one slice of the size
// its frames' headers give (DecodeAll would otherwise grow its output to
// each frame's size in turn, copying everything decoded so far once per
// frame); when they cannot be read, it is streamed into a buffer that
// doubles as it grows.
func decodeZstd(blob []byte) ([]byte, error) {
	if size, ok := zstdContentSize(blob); ok {
		// A frame that records no size (under 256 bytes) grows the output
		// once, at most.
		zr, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, fmt.Errorf("decompress content: %w", err)
		}
		defer zr.Close()
		out, err := zr.DecodeAll(blob, make([]byte, 0, size))
		if err != nil {
			return nil, fmt.Errorf("decompress content: %w", err)
		}
		return out, nil
	}
	zr, err := newZstdReader(bytes.NewReader(blob))
	if err != nil {
		return nil, fmt.Errorf("decompress content: %w", err)
	}
	defer zr.Close()
	var out bytes.Buffer
	out.Grow(8 * len(blob))
	if _, err := io.Copy(&out, zr); err != nil {
		return nil, fmt.Errorf("decompress content: %w", err)
	}
	return out.Bytes(), nil
}

// zstdContentSize is the decompressed size of zstd frames joined, from
// their headers (each frame's blocks are walked to find the next one); a
// frame that records no size (an encoder leaves it out under 256 bytes)
// counts as its window, at most 1 MiB. false when a frame is not whole.
func zstdContentSize(blob []byte) (int, bool) {
	total := 0
	for len(blob) > 0 {
		var h zstd.Header
		rest, err := h.DecodeAndStrip(blob)
		if err != nil || h.Skippable || h.FrameContentSize > 1<<40 {
			return 0, false
		}
		if h.HasFCS {
			total += int(h.FrameContentSize)
		} else {
			total += int(min(h.WindowSize, 1<<20))
		}
		i := 0
		for last := false; !last; {
			if i+3 > len(rest) {
				return 0, false
			}
			bh := int(rest[i]) | int(rest[i+1])<<8 | int(rest[i+2])<<16
			i += 3
			last = bh&1 == 1
			switch (bh >> 1) & 3 {
			case 0, 2: // raw, compressed: their size
				i += bh >> 3
			case 1: // RLE: one byte
				i++
			default:
				return 0, false
			}
		}
		if h.HasCheckSum {
			i += 4
		}
		if i > len(rest) {
			return 0, false
		}
		blob = rest[i:]
	}
	return total, true
}
