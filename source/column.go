package source

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
)

// scanColumn calls fn with the values of every row of leaf column col of rg,
// in row order (a null or empty row has none, or one null value). Values of
// repeated columns are cloned; those of flat columns are valid only during
// the call.
func scanColumn(rg parquet.RowGroup, col int, repeated bool, fn func(row int64, vals []parquet.Value) error) error {
	pages := rg.ColumnChunks()[col].Pages()
	defer pages.Close()
	buf := make([]parquet.Value, 1024)
	var cur []parquet.Value
	row := int64(-1)
	for {
		page, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		vr := page.Values()
		for {
			n, err := vr.ReadValues(buf)
			for _, v := range buf[:n] {
				if !repeated {
					row++
					if err := fn(row, []parquet.Value{v}); err != nil {
						parquet.Release(page)
						return err
					}
					continue
				}
				if v.RepetitionLevel() == 0 {
					if row >= 0 {
						if err := fn(row, cur); err != nil {
							parquet.Release(page)
							return err
						}
					}
					row++
					cur = cur[:0]
				}
				cur = append(cur, v.Clone())
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				parquet.Release(page)
				return err
			}
		}
		parquet.Release(page)
	}
	if repeated && row >= 0 {
		return fn(row, cur)
	}
	return nil
}

// rowsAt reads the values of leaf column col at the given rows of rg
// (ascending), seeking past the pages in between (with an offset index,
// without reading them). The values are cloned.
func rowsAt(rg parquet.RowGroup, col int, rows []int64) ([][]parquet.Value, error) {
	pages := rg.ColumnChunks()[col].Pages()
	defer pages.Close()
	out := make([][]parquet.Value, len(rows))
	buf := make([]parquet.Value, 64)
	repeated := isRepeatedPath(rg, col)
	want := buf
	if !repeated {
		want = buf[:1] // a flat column's row is its first value
	}
	for i, r := range rows {
		if err := pages.SeekToRow(r); err != nil {
			return nil, fmt.Errorf("seek to row %d: %w", r, err)
		}
		var vals []parquet.Value
		done := false
		for !done {
			page, err := pages.ReadPage()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, err
			}
			vr := page.Values()
			for !done {
				n, err := vr.ReadValues(want)
				for _, v := range want[:n] {
					if len(vals) > 0 && v.RepetitionLevel() == 0 {
						done = true
						break
					}
					vals = append(vals, v.Clone())
					if !repeated {
						done = true // a flat column's row is one value
						break
					}
				}
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					parquet.Release(page)
					return nil, err
				}
			}
			parquet.Release(page)
		}
		out[i] = vals
	}
	return out, nil
}

// isRepeatedPath says whether leaf col of rg can hold several values a row.
func isRepeatedPath(rg parquet.RowGroup, col int) bool {
	leaf, ok := rg.Schema().Lookup(rg.Schema().Columns()[col]...)
	return ok && leaf.MaxRepetitionLevel > 0
}

// str is the text of a value ("" for null).
func str(vals []parquet.Value) string {
	if len(vals) == 0 || vals[0].IsNull() {
		return ""
	}
	return string(vals[0].ByteArray())
}

// strs are the non-null texts of a repeated column's row.
func strs(vals []parquet.Value) []string {
	var out []string
	for _, v := range vals {
		if !v.IsNull() {
			out = append(out, string(v.ByteArray()))
		}
	}
	return out
}
