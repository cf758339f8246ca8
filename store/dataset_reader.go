package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"

	kgzip "github.com/klauspost/compress/gzip"
)

// DatasetContent streams the JSONL of one version, decompressing as it is
// read (DatasetFiles returns it whole): readers of large versions, such as
// score --gold NAME@vN, keep only the compressed bytes in memory.
// ErrNotFound when there is no such version.
func (s *Store) DatasetContent(ctx context.Context, name string, version int) (io.ReadCloser, error) {
	var encoding string
	var blob []byte
	err := s.r.QueryRowContext(ctx, `SELECT content_encoding, content FROM datasets WHERE name = ? AND version = ? AND state = 'ready'`,
		name, version).Scan(&encoding, &blob)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("dataset %s@v%d: %w", name, version, ErrNotFound)
	}
	if err == nil {
		blob, err = s.storedContent(ctx, name, version, blob)
	}
	if err != nil {
		return nil, fmt.Errorf("dataset %s@v%d: %w", name, version, err)
	}
	switch encoding {
	case contentIdentity:
		return io.NopCloser(bytes.NewReader(blob)), nil
	case contentGzip:
		zr, err := kgzip.NewReader(bytes.NewReader(blob))
		if err != nil {
			return nil, fmt.Errorf("dataset %s@v%d: decompress content: %w", name, version, err)
		}
		return zr, nil
	case contentZstd:
		zr, err := newZstdReader(bytes.NewReader(blob))
		if err != nil {
			return nil, fmt.Errorf("dataset %s@v%d: decompress content: %w", name, version, err)
		}
		return zr, nil
	}
	return nil, fmt.Errorf("dataset %s@v%d: content encoding %q is not known to this goldtrace", name, version, encoding)
}
