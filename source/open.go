package source

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// openFile is one Parquet file opened for reading, with its layout.
type openFile struct {
	obj    object
	f      *parquet.File
	closer io.Closer
	l      layout
	have   map[string]bool
	pre    prefetcher // nil for local files
}

// openSource lists and opens the files of spec and checks that they share
// one layout. Only the footers are read.
func openSource(ctx context.Context, spec, format, endpoint string, stats *readStats) ([]*openFile, error) {
	var objs []object
	var err error
	if IsS3(spec) {
		objs, err = s3Objects(ctx, spec, endpoint, stats)
	} else {
		objs, err = localObjects(spec, stats)
	}
	if err != nil {
		return nil, err
	}
	var out []*openFile
	fail := func(err error) ([]*openFile, error) {
		closeAll(out)
		return nil, err
	}
	for _, o := range objs {
		of, err := openOne(o, format)
		if err != nil {
			return fail(err)
		}
		out = append(out, of)
		if first := out[0]; of.l.name != first.l.name {
			return fail(fmt.Errorf("mixed layouts: %s is a %s export but %s is a %s export (give one layout per source)",
				first.obj.name, first.l.name, of.obj.name, of.l.name))
		}
	}
	return out, nil
}

func openOne(o object, format string) (*openFile, error) {
	r, closer, err := o.open()
	if err != nil {
		return nil, err
	}
	pre, _ := r.(prefetcher)
	// The page index is read a column chunk at a time, when the second pass
	// seeks in it (offsetIndex), not all at once here.
	opts := []parquet.FileOption{parquet.SkipBloomFilters(true), parquet.SkipPageIndex(true), parquet.ReadBufferSize(readAhead)}
	if pre != nil {
		// The footer's tail and the magic bytes in one read.
		opts = append(opts, parquet.SkipMagicBytes(true), parquet.OptimisticRead(true))
	}
	f, err := parquet.OpenFile(r, o.size, opts...)
	if err != nil {
		closer.Close()
		if f, ok := r.(interface{ failed() error }); ok && f.failed() != nil {
			return nil, f.failed() // the store's answer, not "corrupt"
		}
		return nil, fmt.Errorf("%s: not a readable Parquet file (corrupt or truncated: %s)", o.name, oneLine(err))
	}
	l, err := detectLayout(f.Schema(), format, o.name)
	if err != nil {
		closer.Close()
		return nil, err
	}
	return &openFile{obj: o, f: f, closer: closer, l: l, have: topColumns(f.Schema()), pre: pre}, nil
}

func closeAll(files []*openFile) {
	for _, f := range files {
		f.closer.Close()
	}
}

// column is the first leaf index of top-level column name, -1 when absent.
func (of *openFile) column(name string) int {
	if name == "" || !of.have[name] {
		return -1
	}
	idx := leafIndexes(of.f.Schema(), name)
	if len(idx) == 0 {
		return -1
	}
	return idx[0]
}

// isMap says whether top-level column name is a map (two leaves).
func (of *openFile) isMap(name string) bool {
	return len(leafIndexes(of.f.Schema(), name)) == 2
}

func oneLine(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", " ")
}
