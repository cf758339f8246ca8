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
// member per dataset_parts row; only CompressContent makes one. The
// members are kept apart, never joined: a large version's compressed bytes
// are held once.
type Compressed struct {
	members [][]byte
}

// CompressContent compresses content for StagedVersion.Complete. It needs no
// database, so an export runs it alongside other work.
func CompressContent(content Parts) (Compressed, error) {
	members, err := compressContent(content)
	return Compressed{members}, err
}

// compressContent gzips content (BestSpeed), each part as one gzip member,
// compressed on up to GOMAXPROCS goroutines, the members concatenated: one
// valid gzip stream (RFC 1952 allows several members; gzip -d and Go's
// reader join them). Decompressing gives the joined parts back exactly.
func compressContent(content Parts) ([][]byte, error) {
	n := max(1, content.NumParts()) // no parts: one empty member
	members := make([][]byte, n)
	errs := make([]error, n)
	next := make(chan int, n)
	for i := range n {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(n, runtime.GOMAXPROCS(0)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf bytes.Buffer
			var part []byte // reused: the part's bytes, joined
			// klauspost's gzip writes standard gzip twice as fast as
			// compress/gzip at BestSpeed, and smaller.
			zw, _ := kgzip.NewWriterLevel(&buf, kgzip.BestSpeed) // a valid level: no error
			for i := range next {
				part = part[:0]
				if i < content.NumParts() {
					part = content.AppendPart(i, part)
				}
				buf.Reset()
				zw.Reset(&buf)
				if _, err := zw.Write(part); err != nil {
					errs[i] = err
					continue
				}
				if err := zw.Close(); err != nil {
					errs[i] = err
					continue
				}
				members[i] = bytes.Clone(buf.Bytes())
			}
		}()
	}
	wg.Wait()
	for i := range members {
		if errs[i] != nil {
			return nil, fmt.Errorf("compress content: %w", errs[i])
		}
	}
	return members, nil
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
