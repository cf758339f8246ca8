package gold

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/goldtrace/goldtrace/internal/jsonlex"
)

// Encoder writes gold records as JSON lines: the one encoder of the
// record. Keys come in Record's field order, compact, without HTML
// escaping; values as encoding/json writes them. It writes what it is
// given: dataset.EncodeRecord normalises a record first, for its canonical
// form. An Encoder is not safe for concurrent use.
type Encoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

// NewEncoder returns an Encoder.
func NewEncoder() *Encoder {
	e := &Encoder{}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}

// AppendRecord appends r's line, without the newline, to dst.
func (e *Encoder) AppendRecord(dst []byte, r *Record) ([]byte, error) {
	dst = jsonlex.AppendString(append(dst, `{"id":`...), r.ID, false)
	var err error
	if dst, err = e.AppendValue(append(dst, `,"input":`...), r.Input); err != nil {
		return nil, fmt.Errorf("record %s: input: %w", r.ID, err)
	}
	if dst, err = e.AppendValue(append(dst, `,"available_tools":`...), r.AvailableTools); err != nil {
		return nil, fmt.Errorf("record %s: available_tools: %w", r.ID, err)
	}
	if r.Catalogue != nil { // RecordFormat2
		if dst, err = e.AppendValue(append(dst, `,"catalogue":`...), r.Catalogue); err != nil {
			return nil, fmt.Errorf("record %s: catalogue: %w", r.ID, err)
		}
	}
	if dst, err = e.AppendAnswer(append(dst, ','), r); err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

// AppendAnswer appends the members of r that follow available_tools (from
// "expected_tool" to "provenance", without braces) to dst: the part of a
// record that is the item's own, where the rest may be shared by the items
// of one trace.
func (e *Encoder) AppendAnswer(dst []byte, r *Record) ([]byte, error) {
	dst = append(dst, `"expected_tool":`...)
	if r.ExpectedTool == nil {
		dst = append(dst, "null"...)
	} else {
		dst = jsonlex.AppendString(dst, *r.ExpectedTool, false)
	}
	var err error
	for _, m := range [...]struct {
		key string
		v   any
	}{
		{`,"expected_args":`, r.ExpectedArgs},
		{`,"expected_calls":`, r.ExpectedCalls},
		{`,"acceptable":`, r.Acceptable},
		{`,"rationale":`, r.Rationale},
		{`,"observed_calls":`, r.ObservedCalls},
		{`,"provenance":`, r.Provenance},
	} {
		if dst, err = e.AppendValue(append(dst, m.key...), m.v); err != nil {
			return nil, fmt.Errorf("record %s: %s: %w", r.ID, m.key[2:len(m.key)-2], err)
		}
	}
	return dst, nil
}

// AppendValue appends the JSON of v, a part of a record, as AppendRecord
// writes it.
func (e *Encoder) AppendValue(dst []byte, v any) ([]byte, error) {
	e.buf.Reset()
	if err := e.enc.Encode(v); err != nil {
		return nil, err
	}
	return append(dst, bytes.TrimSuffix(e.buf.Bytes(), []byte("\n"))...), nil
}

// MarshalJSON is AppendRecord's line: encoding/json writes a Record as
// the one encoder does.
func (r Record) MarshalJSON() ([]byte, error) {
	return NewEncoder().AppendRecord(nil, &r)
}
