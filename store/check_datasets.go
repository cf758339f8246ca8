package store

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"

	kgzip "github.com/klauspost/compress/gzip"
)

// readyVersion is an exported version as check reads it: its count, and
// the item rows it has.
type readyVersion struct {
	name       string
	v, n, rows int
}

// readyVersions lists every exported version (one small row each).
func (s *Store) readyVersions(ctx context.Context) ([]readyVersion, error) {
	var vs []readyVersion
	err := eachRow(ctx, s.r, `SELECT d.name, d.version, d.count,
		(SELECT count(*) FROM dataset_items di WHERE di.name = d.name AND di.version = d.version)
		FROM datasets d WHERE d.state = 'ready' ORDER BY d.name, d.version`, nil, func(rows *sql.Rows) error {
		var x readyVersion
		if err := rows.Scan(&x.name, &x.v, &x.n, &x.rows); err != nil {
			return err
		}
		vs = append(vs, x)
		return nil
	})
	if err != nil {
		return nil, s.wrap("check", err)
	}
	return vs, nil
}

// versionProblems checks one exported version: its item rows number its
// count, and its stored content hashes to its sha256. The content is
// hashed as it is decompressed, one stored part at a time, so memory stays
// that of one part whatever the size of the version (a 50k-item version is
// about 300 MB of JSONL).
func (s *Store) versionProblems(ctx context.Context, x readyVersion) []string {
	var out []string
	if x.rows != x.n {
		out = append(out, fmt.Sprintf("dataset %s@v%d has %d records, its manifest counts %d", x.name, x.v, x.rows, x.n))
	}
	var d contentDigest
	recorded, got, err := d.version(ctx, s, x.name, x.v)
	if err != nil {
		return append(out, fmt.Sprintf("dataset %s@v%d: its content cannot be read (%v)", x.name, x.v, s.wrap("", err)))
	}
	if got != recorded {
		out = append(out, fmt.Sprintf("dataset %s@v%d: content hashes to %s, recorded %s", x.name, x.v, got[:12], recorded))
	}
	return out
}

// contentDigest hashes a version's content.
type contentDigest struct {
	sum   hash.Hash
	parts partsReader
	buf   *bufio.Reader
	zr    *kgzip.Reader
	copy  []byte
}

// version returns the sha256 recorded for a ready version and the sha256
// of its stored content decompressed. Its errors are worded as
// DatasetFiles's, which reads the same content whole.
func (d *contentDigest) version(ctx context.Context, s *Store, name string, version int) (recorded, got string, err error) {
	var v DatasetVersion
	var manifest, encoding string
	var blob []byte
	err = s.r.QueryRowContext(ctx, `SELECT `+datasetColumns+`, manifest, content_encoding, content FROM datasets
		WHERE name = ? AND version = ? AND state = 'ready'`, name, version).Scan(v.dest(&manifest, &encoding, &blob)...)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", fmt.Errorf("dataset %s@v%d: %w", name, version, ErrNotFound)
	}
	if err != nil {
		return "", "", fmt.Errorf("dataset %s@v%d: %w", name, version, err)
	}
	if d.sum == nil {
		d.sum = sha256.New()
		d.buf = bufio.NewReaderSize(nil, 64<<10)
		d.copy = make([]byte, 64<<10)
	}
	open := func() error {
		d.sum.Reset()
		if len(blob) > 0 {
			// A version from before dataset_parts keeps its content in
			// the row; it is already in memory.
			d.parts.reset(nil, blob)
			return nil
		}
		rows, err := s.r.QueryContext(ctx, `SELECT data FROM dataset_parts WHERE name = ? AND version = ? ORDER BY seq`, name, version)
		if err != nil {
			return err
		}
		d.parts.reset(rows, nil)
		return nil
	}
	err = d.decode(encoding, open)
	d.parts.close()
	if err != nil {
		return "", "", fmt.Errorf("dataset %s@v%d: %w", name, version, err)
	}
	return v.SHA256, hex.EncodeToString(d.sum.Sum(nil)), nil
}

// decode writes the content read from the parts open starts, decompressed
// per encoding, to d.sum; its errors are decodeContent's, or those of
// reading the parts (which DatasetFiles meets before it decompresses).
// klauspost's gzip decoder, about twice as fast as compress/gzip, reads
// the content; when it fails, compress/gzip (decodeContent's) reads it
// again, so that a damaged version is judged and worded as before.
func (d *contentDigest) decode(encoding string, open func() error) error {
	if encoding != contentIdentity && encoding != contentGzip && encoding != contentZstd {
		return fmt.Errorf("content encoding %q is not known to this goldtrace", encoding)
	}
	if err := open(); err != nil {
		return err
	}
	switch encoding {
	case contentIdentity:
		_, err := io.CopyBuffer(d.sum, &d.parts, d.copy)
		return err
	case contentZstd:
		return d.unzstd(open)
	}
	d.buf.Reset(&d.parts)
	err := d.gunzip(d.buf)
	if err != nil && d.parts.err == nil {
		d.parts.close()
		if err := open(); err != nil {
			return err
		}
		d.buf.Reset(&d.parts)
		err = stdGunzip(d.sum, d.buf)
	}
	if d.parts.err != nil {
		return d.parts.err
	}
	if err != nil {
		return fmt.Errorf("decompress content: %w", err)
	}
	return nil
}

// unzstd decompresses zstd content (frames joined) from the parts into
// d.sum as they are read; when that fails, the content is read whole and
// decoded as DatasetFiles decodes it (decodeZstd), so that a damaged
// version is judged and worded as it is there.
func (d *contentDigest) unzstd(open func() error) error {
	d.buf.Reset(&d.parts)
	zr, err := newZstdReader(d.buf)
	if err == nil {
		_, err = io.CopyBuffer(d.sum, zr, d.copy)
		zr.Close()
	}
	if d.parts.err != nil || err == nil {
		return d.parts.err
	}
	d.parts.close()
	if err := open(); err != nil {
		return err
	}
	blob, err := io.ReadAll(&d.parts)
	if err != nil {
		return err
	}
	content, err := decodeZstd(blob)
	if err != nil {
		return err
	}
	_, err = d.sum.Write(content)
	return err
}

// gunzip decompresses r into d.sum with the reused klauspost reader.
func (d *contentDigest) gunzip(r io.Reader) error {
	var err error
	if d.zr == nil {
		d.zr, err = kgzip.NewReader(r)
	} else {
		err = d.zr.Reset(r)
	}
	if err != nil {
		return err
	}
	if _, err := io.CopyBuffer(d.sum, d.zr, d.copy); err != nil {
		return err
	}
	return d.zr.Close()
}

// partsReader reads a version's content: its dataset_parts rows in order,
// one at a time, or the content of its row.
type partsReader struct {
	rows *sql.Rows
	part []byte // the part being read, from off
	off  int
	buf  []byte // holds the row's part
	err  error  // reading the rows failed
}

func (r *partsReader) reset(rows *sql.Rows, blob []byte) {
	r.rows, r.part, r.off, r.err = rows, blob, 0, nil
}

func (r *partsReader) Read(p []byte) (int, error) {
	for r.off == len(r.part) {
		if r.err != nil {
			return 0, r.err
		}
		if r.rows == nil || !r.rows.Next() {
			if r.rows != nil {
				r.err = r.rows.Err()
			}
			if r.err == nil {
				return 0, io.EOF
			}
			return 0, r.err
		}
		var part sql.RawBytes
		if r.err = r.rows.Scan(&part); r.err != nil {
			return 0, r.err
		}
		r.buf = append(r.buf[:0], part...)
		r.part, r.off = r.buf, 0
	}
	n := copy(p, r.part[r.off:])
	r.off += n
	return n, nil
}

func (r *partsReader) close() {
	if r.rows != nil {
		r.rows.Close()
		r.rows = nil
	}
}

// stdGunzip is decodeContent's decompression, writing to w.
func stdGunzip(w io.Writer, r io.Reader) error {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, zr); err != nil {
		return err
	}
	return zr.Close()
}
