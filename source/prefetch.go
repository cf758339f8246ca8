package source

import (
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/parquet-go/parquet-go"
)

// prefetcher is a reader that fetches byte ranges ahead of decoding them
// (an object store); local files are read as asked.
type prefetcher interface {
	prefetch(ranges [][2]int64) error
}

// readAhead is how far past a page the page reader may look (its buffer).
const readAhead = 2 << 10

func sortRanges(rs [][2]int64) {
	slices.SortFunc(rs, func(a, b [2]int64) int {
		switch {
		case a[0] < b[0]:
			return -1
		case a[0] > b[0]:
			return 1
		}
		return 0
	})
}

// chunkRange is the byte range of column col of row group rg.
func (of *openFile) chunkRange(rg, col int) [2]int64 {
	md := of.f.Metadata().RowGroups[rg].Columns[col].MetaData
	start := md.DataPageOffset
	if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < start {
		start = md.DictionaryPageOffset
	}
	return [2]int64{start, start + md.TotalCompressedSize}
}

// scan is scanColumn with the whole column chunk fetched first.
func (of *openFile) scan(rg, col int, repeated bool, fn func(row int64, vals []parquet.Value) error) error {
	if of.pre != nil {
		if err := of.pre.prefetch([][2]int64{of.chunkRange(rg, col)}); err != nil {
			return err
		}
	}
	return scanColumn(of.f.RowGroups()[rg], col, repeated, fn)
}

// rowsAt is rowsAt with only the pages holding rows fetched first (and the
// dictionary page): the chunk's offset index, read first, says where they
// are; without one the whole chunk is fetched (and seeking reads through it).
func (of *openFile) rowsAt(rg, col int, rows []int64) ([][]parquet.Value, error) {
	g := of.f.RowGroups()[rg]
	var index parquet.OffsetIndex
	if fc, ok := g.ColumnChunks()[col].(*parquet.FileColumnChunk); ok {
		if oi, err := fc.OffsetIndex(); err == nil {
			index = oi
		} else if !errors.Is(err, parquet.ErrMissingOffsetIndex) {
			return nil, fmt.Errorf("offset index of column %d: %w", col, err)
		}
	}
	if of.pre != nil {
		ranges := [][2]int64{of.chunkRange(rg, col)}
		if index != nil && index.NumPages() > 0 {
			ranges = of.pageRanges(rg, col, index, rows)
		}
		if err := of.pre.prefetch(ranges); err != nil {
			return nil, err
		}
	}
	return rowsAt(g, col, rows)
}

// pageRanges are the byte ranges of the pages of column col of row group
// rg that hold rows, with the dictionary page.
func (of *openFile) pageRanges(rg, col int, index parquet.OffsetIndex, rows []int64) [][2]int64 {
	chunk := of.chunkRange(rg, col)
	md := of.f.Metadata().RowGroups[rg].Columns[col].MetaData
	var out [][2]int64
	if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < index.Offset(0) {
		out = append(out, [2]int64{md.DictionaryPageOffset, index.Offset(0)})
	}
	repeated := isRepeatedPath(of.f.RowGroups()[rg], col)
	n := index.NumPages()
	for _, r := range rows {
		i := sort.Search(n, func(i int) bool { return index.FirstRowIndex(i) > r }) - 1
		i = max(i, 0)
		last := i
		if repeated && last+1 < n { // a row may go on in the next page
			last++
		}
		end := index.Offset(last) + index.CompressedPageSize(last) + readAhead
		out = append(out, [2]int64{index.Offset(i), min(end, chunk[1])})
	}
	return out
}
