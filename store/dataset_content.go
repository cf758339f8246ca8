package store

import (
	"bytes"
	"compress/gzip"

	"fmt"
	"io"
	"runtime"
	"sync"

	kgzip "github.com/klauspost/compress/gzip"
)

// Content encodings of datasets.content.
const (
	contentIdentity = "identity"
	contentGzip     = "gzip"
)

// Parts is the content of a version in consecutive parts, which the store
// compresses in parallel without joining them first: AppendPart appends
// part i to dst. dataset.Content is one.
type Parts interface {
	NumParts() int
	AppendPart(i int, dst []byte) []byte
}

// Compressed is the content of a version as the store keeps it, one gzip
// member per dataset_parts row; only a Compressor makes one. The members
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

// compressContent gzips content through a Compressor, reading its parts
// in turn.
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

// Compressor gzips a version's content (BestSpeed) as its parts are handed
// over, each part as one gzip member, on up to GOMAXPROCS goroutines; the
// members concatenated are one valid gzip stream (RFC 1952 allows several
// members; gzip -d and Go's reader join them), and decompressing gives the
// joined parts back exactly. The same parts give the same bytes however
// they are handed over.
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
	var buf bytes.Buffer
	// klauspost's gzip writes standard gzip twice as fast as
	// compress/gzip at BestSpeed, and smaller.
	zw, _ := kgzip.NewWriterLevel(&buf, kgzip.BestSpeed) // a valid level: no error
	for j := range z.jobs {
		buf.Reset()
		zw.Reset(&buf)
		_, err := zw.Write(j.part)
		if err == nil {
			err = zw.Close()
		}
		j.release()
		if err != nil {
			z.errs[j.i] = err
			continue
		}
		z.members[j.i] = bytes.Clone(buf.Bytes())
	}
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
	default:
		return nil, fmt.Errorf("content encoding %q is not known to this goldtrace", encoding)
	}
}
