package source

import (
	"context"
	"fmt"
	"io"

	"github.com/goldtrace/goldtrace/trace"
)

// Reader reads every model call of a Parquet source as a trace (its
// conversation up to and including the call), file by file, in row order,
// a few hundred rows at a time. It implements trace.Reader.
type Reader struct {
	files   []*openFile
	stats   readStats
	file    int
	rg      int
	pending []known // model-call rows of the current row group not yet read
	out     []trace.Trace
	total   int64
}

// Source is an opened source read one trace at a time (for import).
type Source interface {
	trace.Reader
	io.Closer
	Size() int64      // bytes, when known (else 0)
	BytesRead() int64 // so far
}

// Open opens source spec (format "" sniffs the layout; endpoint, for s3://
// sources, names an S3-compatible service).
func Open(ctx context.Context, spec, format, endpoint string) (Source, error) {
	if IsPostgres(spec) {
		return openPhoenix(ctx, spec, format)
	}
	r := &Reader{}
	files, err := openSource(ctx, spec, format, endpoint, &r.stats)
	if err != nil {
		return nil, err
	}
	r.files = files
	for _, f := range files {
		r.total += f.obj.size
	}
	return r, nil
}

// Size is the source's size in bytes; BytesRead how many have been read.
func (r *Reader) Size() int64      { return r.total }
func (r *Reader) BytesRead() int64 { return r.stats.bytes.Load() }

// Layout is the source's layout.
func (r *Reader) Layout() string { return r.files[0].l.name }

// Close closes the source's files.
func (r *Reader) Close() error {
	closeAll(r.files)
	return nil
}

const readChunk = 256

// Next implements trace.Reader.
func (r *Reader) Next() (trace.Trace, error) {
	for len(r.out) == 0 {
		if err := r.fill(); err != nil {
			return trace.Trace{}, err
		}
	}
	t := r.out[0]
	r.out = r.out[1:]
	return t, nil
}

// fill reads the next chunk of model calls into out.
func (r *Reader) fill() error {
	for len(r.pending) == 0 {
		if r.file >= len(r.files) {
			return io.EOF
		}
		of := r.files[r.file]
		if r.rg >= len(of.f.RowGroups()) {
			r.file, r.rg = r.file+1, 0
			continue
		}
		d, err := loadRowGroup(of, r.rg, needs{})
		if err != nil {
			return err
		}
		for i, call := range d.call {
			if call {
				r.pending = append(r.pending, known{int64(i), d.ids[i], d.ts[i]})
			}
		}
		if len(r.pending) == 0 {
			r.rg++
		}
	}
	of := r.files[r.file]
	rows := r.pending[:min(readChunk, len(r.pending))]
	r.pending = r.pending[len(rows):]
	var ferr error
	err := loadGroupRows(of, r.rg, rows, func(row int64, d rowData) {
		if ferr != nil {
			return
		}
		t, err := decodeCall(of.l, d)
		if err != nil {
			ferr = fmt.Errorf("%s: row %d (%s): %w", where(of, r.rg), row, d.id, err)
			return
		}
		r.out = append(r.out, t)
	})
	if err != nil {
		return at(of, r.rg, err)
	}
	if ferr != nil {
		return ferr
	}
	if len(r.pending) == 0 {
		r.rg++
	}
	return nil
}
