package store

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"runtime"
	"sync"
)

// Content encodings of datasets.content.
const (
	contentIdentity = "identity"
	contentGzip     = "gzip"
)

// contentChunkSize is how much of the JSONL one gzip member holds: members
// are compressed in parallel and concatenated, which is one valid gzip
// stream (RFC 1952 allows several members; gzip -d and Go's reader join them).
const contentChunkSize = 4 << 20

// compressContent gzips content (BestSpeed) as concatenated members of at
// most contentChunkSize input bytes each, compressed on up to GOMAXPROCS
// goroutines. Decompressing gives content back exactly.
func compressContent(content []byte) ([]byte, error) {
	n := (len(content) + contentChunkSize - 1) / contentChunkSize
	if n == 0 {
		n = 1
	}
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
			zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed) // a valid level: no error
			for i := range next {
				chunk := content[i*contentChunkSize : min((i+1)*contentChunkSize, len(content))]
				buf.Reset()
				zw.Reset(&buf)
				if _, err := zw.Write(chunk); err != nil {
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
	size := 0
	for i, m := range members {
		if errs[i] != nil {
			return nil, fmt.Errorf("compress content: %w", errs[i])
		}
		size += len(m)
	}
	out := make([]byte, 0, size)
	for _, m := range members {
		out = append(out, m...)
	}
	return out, nil
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
