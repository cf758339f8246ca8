package source

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/goldtrace/goldtrace/sampling"
	"github.com/goldtrace/goldtrace/trace"
)

// needs says which cheap columns the first pass reads beyond id, kind and
// start time.
type needs struct {
	tools bool // names of the tools called (stratum or filter "tool", --turns)
	meta  bool // metadata (stratum or filter "meta.NAME")
}

func needsOf(by string, f sampling.Filter) needs {
	var n needs
	mark := func(key string) {
		if key == "tool" {
			n.tools = true
		} else if strings.HasPrefix(key, "meta.") {
			n.meta = true
		}
	}
	mark(by)
	for _, c := range f.Where {
		mark(c.Key)
	}
	if f.Turns == sampling.TurnsCalls || f.Turns == sampling.TurnsNoCalls {
		n.tools = true
	}
	return n
}

// rgRows is what the first pass knows of one row group's rows.
type rgRows struct {
	n     int64
	call  []bool // the row is a model call
	ids   []string
	ts    []time.Time
	tools [][]string          // names of the tools called, when needed
	meta  []map[string]string // metadata, when needed
}

// at is err said of row group rg of of, unless it is the object store's
// failure, which names the object already.
func at(of *openFile, rg int, err error) error {
	var se *storeError
	if errors.As(err, &se) {
		return se
	}
	return fmt.Errorf("%s: %w", where(of, rg), err)
}

// where names a row group for errors.
func where(of *openFile, rg int) string {
	return fmt.Sprintf("%s: row group %d", of.obj.name, rg)
}

// loadRowGroup reads the cheap columns of row group rg.
func loadRowGroup(of *openFile, rg int, nd needs) (*rgRows, error) {
	g := of.f.RowGroups()[rg]
	l := of.l
	d := &rgRows{n: g.NumRows()}
	d.call = make([]bool, d.n)
	d.ids = make([]string, d.n)
	d.ts = make([]time.Time, d.n)
	fail := func(err error) (*rgRows, error) { return nil, at(of, rg, err) }
	if err := of.scan(rg, of.column(l.kind), false, func(r int64, v []parquet.Value) error {
		d.call[r] = str(v) == l.kindIs
		return nil
	}); err != nil {
		return fail(err)
	}
	if err := of.scan(rg, of.column(l.id), false, func(r int64, v []parquet.Value) error {
		if d.call[r] {
			d.ids[r] = str(v)
		}
		return nil
	}); err != nil {
		return fail(err)
	}
	startCol := of.column(l.start)
	startType := g.ColumnChunks()[startCol].Type()
	if err := of.scan(rg, startCol, false, func(r int64, v []parquet.Value) error {
		if !d.call[r] || len(v) == 0 || v[0].IsNull() {
			return nil
		}
		t, err := timeOf(v[0], startType)
		if err != nil {
			return fmt.Errorf("row %d: %s: %w", r, l.start, err)
		}
		d.ts[r] = t
		return nil
	}); err != nil {
		return fail(err)
	}
	if nd.tools {
		d.tools = make([][]string, d.n)
		if c := of.column(l.names); c >= 0 {
			if err := of.scan(rg, c, true, func(r int64, v []parquet.Value) error {
				if d.call[r] {
					d.tools[r] = strs(v)
				}
				return nil
			}); err != nil {
				return fail(err)
			}
		} else if err := of.scan(rg, of.column(l.output), false, func(r int64, v []parquet.Value) error {
			if !d.call[r] {
				return nil
			}
			names, err := calledTools(l, str(v))
			if err != nil {
				return fmt.Errorf("row %d: %s: %w", r, l.output, err)
			}
			d.tools[r] = names
			return nil
		}); err != nil {
			return fail(err)
		}
	}
	if nd.meta {
		d.meta = make([]map[string]string, d.n)
		scan := func(col int, repeated bool, fn func(int64, []parquet.Value) error) error {
			return of.scan(rg, col, repeated, fn)
		}
		if err := loadMeta(of, scan, func(r int64) bool { return d.call[r] }, setMeta(d.meta)); err != nil {
			return fail(err)
		}
	}
	return d, nil
}

// colReader calls fn with the values of the rows of one leaf column that a
// pass reads: every row (first pass) or the chosen ones (second pass).
type colReader func(col int, repeated bool, fn func(r int64, v []parquet.Value) error) error

// loadMeta reads the metadata of the rows want says: the layout's context
// columns, then its metadata column (a map, or JSON text), then LangSmith's
// extra.metadata. The first value given for a key wins.
func loadMeta(of *openFile, read colReader, want func(int64) bool, set func(r int64, k, v string)) error {
	l := of.l
	for _, c := range l.contextColumns(of.have) {
		key := l.context[c]
		if err := read(of.column(c), false, func(r int64, v []parquet.Value) error {
			if s := str(v); want(r) && s != "" {
				set(r, key, s)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	metaCol := l.meta
	if l.extra != "" {
		metaCol = l.extra
	}
	if metaCol == "" || !of.have[metaCol] {
		return nil
	}
	if of.isMap(metaCol) {
		idx := leafIndexes(of.f.Schema(), metaCol)
		keys := map[int64][]string{}
		if err := read(idx[0], true, func(r int64, v []parquet.Value) error {
			if want(r) {
				keys[r] = strs(v)
			}
			return nil
		}); err != nil {
			return err
		}
		return read(idx[1], true, func(r int64, v []parquet.Value) error {
			if !want(r) {
				return nil
			}
			for i, val := range v {
				if i < len(keys[r]) && !val.IsNull() {
					set(r, keys[r][i], string(val.ByteArray()))
				}
			}
			delete(keys, r)
			return nil
		})
	}
	return read(of.column(metaCol), false, func(r int64, v []parquet.Value) error {
		if !want(r) {
			return nil
		}
		kv, err := metaFromJSON(str(v), l.extra != "")
		if err != nil {
			return fmt.Errorf("row %d: %s: %w", r, metaCol, err)
		}
		for k, val := range kv {
			set(r, k, val)
		}
		return nil
	})
}

// setMeta is a loadMeta setter into one map per row.
func setMeta(out []map[string]string) func(r int64, k, v string) {
	return func(r int64, k, v string) {
		if out[r] == nil {
			out[r] = map[string]string{}
		}
		if _, ok := out[r][k]; !ok {
			out[r][k] = v
		}
	}
}

// metaFromJSON reads a JSON object of metadata (inExtra: the object's
// "metadata" member, as in LangSmith's extra). String values are kept as
// they are, others as their JSON text.
func metaFromJSON(text string, inExtra bool) (map[string]string, error) {
	text = strings.TrimSpace(text)
	if text == "" || text == "null" {
		return nil, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &obj); err != nil {
		return nil, fmt.Errorf("not a JSON object: %s", oneLine(err))
	}
	if inExtra {
		inner := obj["metadata"]
		obj = nil
		if len(inner) > 0 && string(inner) != "null" {
			if err := json.Unmarshal(inner, &obj); err != nil {
				return nil, fmt.Errorf("metadata is not a JSON object: %s", oneLine(err))
			}
		}
	}
	out := make(map[string]string, len(obj))
	for k, raw := range obj {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			out[k] = s
		} else {
			out[k] = string(raw)
		}
	}
	return out, nil
}

// calledTools are the names of the tools a model call's output calls, read
// the way the second pass reads the output (see decodeCall).
func calledTools(l layout, output string) ([]string, error) {
	t, err := decodeCall(l, rowData{id: "x", output: output, input: `[{"role":"user","content":"-"}]`})
	if err != nil {
		return nil, err
	}
	last := t.Messages[len(t.Messages)-1]
	if last.Role != trace.RoleAssistant {
		return nil, nil
	}
	var names []string
	for _, c := range last.ToolCalls {
		names = append(names, c.Name)
	}
	return names, nil
}

// timeOf reads a timestamp: a Parquet TIMESTAMP (milli-, micro- or
// nanoseconds), or text as the vendors write it.
func timeOf(v parquet.Value, t parquet.Type) (time.Time, error) {
	if lt := t.LogicalType(); lt != nil {
		if ts, ok := lt.Value.(*format.TimestampType); ok {
			unit := time.Microsecond
			if u, ok := ts.Unit.Value.(interface{ Duration() time.Duration }); ok {
				unit = u.Duration()
			}
			return time.Unix(0, v.Int64()*int64(unit)).UTC(), nil
		}
	}
	if v.Kind() == parquet.ByteArray {
		s := strings.TrimSpace(string(v.ByteArray()))
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00"} {
			if ts, err := time.Parse(layout, s); err == nil {
				return ts.UTC(), nil
			}
		}
		return time.Time{}, fmt.Errorf("%q is not a timestamp", s)
	}
	return time.Time{}, fmt.Errorf("a %s column is not a timestamp (want TIMESTAMP or text)", t)
}
