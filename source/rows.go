package source

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/goldtrace/goldtrace/trace"
)

// rowRef is one row of a source: file, row group, row within the group.
type rowRef struct {
	file, rg int
	row      int64
}

// rowData is what the second pass reads of one model-call row.
type rowData struct {
	id     string
	ts     time.Time
	input  string
	output string
	tools  string // tool definitions as a JSON list ("" when none)
	extra  string
	meta   map[string]string
}

// known is what the first pass already read of a row: its index in its
// row group, id and start time.
type known struct {
	row int64
	id  string
	ts  time.Time
}

// loadRows reads the message and tool columns of the given candidates'
// rows only, seeking to each row's page.
func loadRows(files []*openFile, cands []cand) (map[rowRef]rowData, error) {
	out := make(map[rowRef]rowData, len(cands))
	groups := map[[2]int][]known{}
	for _, c := range cands {
		k := [2]int{c.ref.file, c.ref.rg}
		groups[k] = append(groups[k], known{c.ref.row, c.id, c.ts})
	}
	keys := slices.SortedFunc(maps.Keys(groups), func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	for _, k := range keys {
		rows := groups[k]
		slices.SortFunc(rows, func(a, b known) int { return int(a.row - b.row) })
		rows = slices.CompactFunc(rows, func(a, b known) bool { return a.row == b.row })
		of := files[k[0]]
		if err := loadGroupRows(of, k[1], rows, func(r int64, d rowData) { out[rowRef{k[0], k[1], r}] = d }); err != nil {
			return nil, at(of, k[1], err)
		}
	}
	return out, nil
}

// loadGroupRows reads the given rows (ascending) of row group rg of of.
func loadGroupRows(of *openFile, rg int, ks []known, put func(int64, rowData)) error {
	l := of.l
	rows := make([]int64, len(ks))
	idx := map[int64]int{}
	data := make([]rowData, len(ks))
	for i, k := range ks {
		rows[i] = k.row
		idx[k.row] = i
		data[i].id, data[i].ts = k.id, k.ts
	}
	read := func(col int, repeated bool, fn func(int64, []parquet.Value) error) error {
		vals, err := of.rowsAt(rg, col, rows)
		if err != nil {
			return err
		}
		for i, v := range vals {
			if err := fn(rows[i], v); err != nil {
				return err
			}
		}
		return nil
	}
	text := func(name string, dst func(*rowData) *string) error {
		c := of.column(name)
		if c < 0 {
			return nil
		}
		return read(c, false, func(r int64, v []parquet.Value) error {
			*dst(&data[idx[r]]) = str(v)
			return nil
		})
	}
	for _, f := range []struct {
		col string
		dst func(*rowData) *string
	}{
		{l.input, func(d *rowData) *string { return &d.input }},
		{l.output, func(d *rowData) *string { return &d.output }},
		{l.extra, func(d *rowData) *string { return &d.extra }},
	} {
		if err := text(f.col, f.dst); err != nil {
			return err
		}
	}
	if err := loadTools(of, read, func(r int64, tools string) { data[idx[r]].tools = tools }); err != nil {
		return err
	}
	metas := make([]map[string]string, len(rows))
	set := setMeta(metas)
	if err := loadMeta(of, read, func(int64) bool { return true }, func(r int64, k, v string) { set(int64(idx[r]), k, v) }); err != nil {
		return err
	}
	for i, r := range rows {
		data[i].meta = metas[i]
		put(r, data[i])
	}
	return nil
}

// loadTools reads the layout's tool-definitions column, when it has one, as
// a JSON list of OpenAI-style tools.
func loadTools(of *openFile, read colReader, put func(int64, string)) error {
	name := of.l.tools
	if name == "" || !of.have[name] {
		return nil
	}
	if of.isMap(name) {
		idx := leafIndexes(of.f.Schema(), name)
		keys := map[int64][]string{}
		if err := read(idx[0], true, func(r int64, v []parquet.Value) error {
			keys[r] = strs(v)
			return nil
		}); err != nil {
			return err
		}
		return read(idx[1], true, func(r int64, v []parquet.Value) error {
			defs := map[string]string{}
			for i, val := range v {
				if i < len(keys[r]) && !val.IsNull() {
					defs[keys[r][i]] = string(val.ByteArray())
				}
			}
			list, err := toolList(defs)
			if err != nil {
				return fmt.Errorf("row %d: %s: %w", r, name, err)
			}
			put(r, list)
			return nil
		})
	}
	return read(of.column(name), false, func(r int64, v []parquet.Value) error {
		list, err := toolText(str(v))
		if err != nil {
			return fmt.Errorf("row %d: %s: %w", r, name, err)
		}
		put(r, list)
		return nil
	})
}

// toolList turns Langfuse's tool definitions (tool name -> its definition
// as JSON) into a JSON list of OpenAI-style tools, in name order.
func toolList(defs map[string]string) (string, error) {
	if len(defs) == 0 {
		return "", nil
	}
	var list []json.RawMessage
	for _, name := range slices.Sorted(maps.Keys(defs)) {
		t, err := toolOf(name, []byte(defs[name]))
		if err != nil {
			return "", fmt.Errorf("tool %q: %w", name, err)
		}
		list = append(list, t)
	}
	b, err := json.Marshal(list)
	return string(b), err
}

// toolText reads tool definitions written as JSON text: a list of tools, or
// an object of tool name -> definition.
func toolText(text string) (string, error) {
	text = strings.TrimSpace(text)
	if text == "" || text == "null" || text == "{}" || text == "[]" {
		return "", nil
	}
	if text[0] == '[' {
		if !json.Valid([]byte(text)) {
			return "", errors.New("not valid JSON")
		}
		return text, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &obj); err != nil {
		return "", fmt.Errorf("not a JSON object or list: %s", oneLine(err))
	}
	if _, one := obj["function"]; one || obj["parameters"] != nil || obj["input_schema"] != nil {
		return "[" + text + "]", nil
	}
	defs := make(map[string]string, len(obj))
	for k, v := range obj {
		var inner string // a definition written as JSON text
		if json.Unmarshal(v, &inner) == nil {
			defs[k] = inner
		} else {
			defs[k] = string(v)
		}
	}
	return toolList(defs)
}

// toolOf is one named definition as an OpenAI-style tool: a whole tool
// ({"type":"function","function":…}) is kept, a {description, parameters}
// gets the name, anything else is taken as the parameters' schema.
func toolOf(name string, def []byte) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(def, &obj); err != nil {
		return nil, fmt.Errorf("not a JSON object: %s", oneLine(err))
	}
	if _, ok := obj["function"]; ok {
		return def, nil
	}
	fn := map[string]json.RawMessage{}
	if obj["parameters"] != nil || obj["description"] != nil {
		fn = obj
	} else {
		fn["parameters"] = def
	}
	fn["name"], _ = json.Marshal(name)
	return json.Marshal(map[string]any{"type": "function", "function": fn})
}

// decodeCall rebuilds the conversation of one model-call row with trace's
// importer for the vendor's JSON export (the same reading a JSON export of
// the row gets): the input's messages, then the output's assistant message.
// The trace's id is the row's id and its metadata the row's.
func decodeCall(l layout, d rowData) (trace.Trace, error) {
	for _, c := range []struct{ col, text string }{{l.input, d.input}, {l.output, d.output}} {
		if s := strings.TrimSpace(c.text); s != "" && (s[0] == '{' || s[0] == '[') && !json.Valid([]byte(s)) {
			return trace.Trace{}, fmt.Errorf("%s: JSON that does not parse", c.col)
		}
	}
	var rec []byte
	var err error
	ts := ""
	if !d.ts.IsZero() {
		ts = d.ts.Format(time.RFC3339Nano)
	}
	switch l.name {
	case Langfuse:
		obs := map[string]any{"id": d.id, "type": "GENERATION", "input": d.input, "output": d.output}
		if ts != "" {
			obs["startTime"] = ts
		}
		if d.tools != "" {
			obs["metadata"] = map[string]json.RawMessage{"tools": json.RawMessage(d.tools)}
		}
		rec, err = json.Marshal(map[string]any{"id": d.id, "timestamp": ts, "observations": []any{obs}})
	default:
		extra := json.RawMessage("{}")
		if e := strings.TrimSpace(d.extra); strings.HasPrefix(e, "{") && json.Valid([]byte(e)) {
			extra = json.RawMessage(e)
		}
		run := map[string]any{"id": d.id, "trace_id": d.id, "run_type": "llm",
			"inputs": jsonOrText(d.input), "outputs": jsonOrText(d.output), "extra": extra}
		if ts != "" {
			run["start_time"] = ts
		}
		rec, err = json.Marshal(run)
	}
	if err != nil {
		return trace.Trace{}, err
	}
	r, err := trace.NewReader(bytes.NewReader(rec), l.name)
	if err != nil {
		return trace.Trace{}, err
	}
	t, err := r.Next()
	if errors.Is(err, io.EOF) {
		return trace.Trace{}, errors.New("no model call")
	}
	if err != nil {
		var re *trace.RecordError
		if errors.As(err, &re) {
			err = re.Err
		}
		return trace.Trace{}, err
	}
	if len(t.Messages) == 0 || t.Messages[len(t.Messages)-1].Role != trace.RoleAssistant {
		return trace.Trace{}, errors.New("the output holds no assistant message")
	}
	t.ID = d.id
	t.Metadata = maps.Clone(d.meta)
	if !d.ts.IsZero() {
		t.Timestamp = d.ts
	}
	return t, nil
}

// jsonOrText is text as JSON when it is a JSON object or list, else as a
// JSON string.
func jsonOrText(text string) any {
	s := strings.TrimSpace(text)
	if s != "" && (s[0] == '{' || s[0] == '[') && json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	return text
}
