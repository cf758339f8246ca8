package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// span is one tracing span as the span formats see it: its trace id, start
// time, and attributes as JSON values keyed by their dotted names.
type span struct {
	line     int
	traceID  string
	start    time.Time
	attrs    map[string]json.RawMessage
	resource map[string]json.RawMessage
	events   []spanEvent
}

// spanPart is what one span contributes to its trace. Every LLM span
// carries the whole conversation up to its call, so a trace takes the
// messages of its longest span; tools and metadata are merged.
type spanPart struct {
	line     int
	traceID  string
	start    time.Time
	messages []Message
	tools    []Tool
	meta     map[string]string
}

// spanDecoder groups the spans of the OTLP and OpenInference formats into
// traces. Memory bound: an OTLP export batch (one resourceSpans record) is
// grouped whole, as its spans arrive together; across records (a JSON Lines
// file of single spans) only consecutive spans of the same trace id are
// grouped, so at most one trace is held open at a time. Spans of one trace
// that are not adjacent become separate records with the same id, which
// import reports as a conflict.
type spanDecoder struct {
	cache  schemaCache
	format string
	open   []spanPart // the current run of single spans
}

func newSpanDecoder(cache schemaCache, format string) *spanDecoder {
	return &spanDecoder{cache: cache, format: format}
}

// part reads one span by the conventions its attributes follow (an OTLP
// export may carry OpenInference spans, and the reverse).
func (d *spanDecoder) part(s span) (spanPart, error) {
	if isOpenInference(s.attrs) || d.format == FormatOpenInference && len(s.events) == 0 && !hasGenAI(s.attrs) {
		return openInferencePart(s, d.cache)
	}
	return genAISpanPart(s, d.cache)
}

func hasGenAI(a map[string]json.RawMessage) bool {
	for k := range a {
		if strings.HasPrefix(k, "gen_ai.") {
			return true
		}
	}
	return false
}

func (d *spanDecoder) record(line int, data []byte) []result {
	spans, batch, err := parseSpans(line, data)
	if err != nil {
		return errResult(line, err)
	}
	var out []result
	if batch {
		out = d.flush()
		var order []string
		groups := map[string][]spanPart{}
		for _, s := range spans {
			p, err := d.part(s)
			if err != nil {
				out = append(out, result{line: line, err: spanError(s, err)})
				continue
			}
			key := p.traceID
			if key == "" {
				key = "\x00" + strconv.Itoa(len(order))
			}
			if _, ok := groups[key]; !ok {
				order = append(order, key)
			}
			groups[key] = append(groups[key], p)
		}
		for _, k := range order {
			out = append(out, mergeParts(groups[k]))
		}
		return out
	}
	for _, s := range spans {
		p, err := d.part(s)
		if err != nil {
			out = append(out, d.flush()...)
			out = append(out, result{line: line, err: spanError(s, err)})
			continue
		}
		if len(d.open) > 0 && (p.traceID == "" || p.traceID != d.open[0].traceID) {
			out = append(out, d.flush()...)
		}
		d.open = append(d.open, p)
	}
	return out
}

func (d *spanDecoder) flush() []result {
	if len(d.open) == 0 {
		return nil
	}
	r := mergeParts(d.open)
	d.open = nil
	return []result{r}
}

func spanError(s span, err error) error {
	if s.traceID != "" {
		return fmt.Errorf("trace %s: %w", s.traceID, err)
	}
	return err
}

// mergeParts builds one trace from the parts of its spans.
func mergeParts(parts []spanPart) result {
	best := -1
	t := Trace{ID: parts[0].traceID}
	seenTool := map[string]bool{}
	for i, p := range parts {
		if len(p.messages) > 0 && (best < 0 || len(p.messages) >= len(parts[best].messages)) {
			best = i
		}
		if !p.start.IsZero() && (t.Timestamp.IsZero() || p.start.Before(t.Timestamp)) {
			t.Timestamp = p.start
		}
		for k, v := range p.meta {
			if t.Metadata == nil {
				t.Metadata = map[string]string{}
			}
			if _, ok := t.Metadata[k]; !ok {
				t.Metadata[k] = v
			}
		}
	}
	// Definitions from LLM spans first; tools only seen executed after.
	for _, withParams := range []bool{true, false} {
		for _, p := range parts {
			for _, tool := range p.tools {
				if (len(tool.Parameters) > 0) == withParams && !seenTool[tool.Name] {
					seenTool[tool.Name] = true
					t.Tools = append(t.Tools, tool)
				}
			}
		}
	}
	if best < 0 {
		return result{line: parts[0].line, err: errors.New("no span with LLM messages (only tool or chain spans or runs?)")}
	}
	t.Messages = parts[best].messages
	return result{line: parts[0].line, t: t}
}

// otlpAnyValue is OTLP/JSON's AnyValue.
type otlpAnyValue struct {
	StringValue *string         `json:"stringValue"`
	BoolValue   *bool           `json:"boolValue"`
	IntValue    json.RawMessage `json:"intValue"` // a string or a number
	DoubleValue json.RawMessage `json:"doubleValue"`
	ArrayValue  *struct {
		Values []otlpAnyValue `json:"values"`
	} `json:"arrayValue"`
	KvlistValue *struct {
		Values []otlpKeyValue `json:"values"`
	} `json:"kvlistValue"`
}

// otlpResource is the resource of a batch of spans or log records.
type otlpResource struct {
	Attributes []otlpKeyValue `json:"attributes"`
}

type otlpKeyValue struct {
	Key   string       `json:"key"`
	Value otlpAnyValue `json:"value"`
}

// json renders an AnyValue as the JSON value it stands for.
func (v otlpAnyValue) json() json.RawMessage {
	switch {
	case v.StringValue != nil:
		b, _ := json.Marshal(*v.StringValue)
		return b
	case v.BoolValue != nil:
		return json.RawMessage(strconv.FormatBool(*v.BoolValue))
	case len(v.IntValue) > 0:
		return bytes.Trim(v.IntValue, `"`)
	case len(v.DoubleValue) > 0:
		return bytes.Trim(v.DoubleValue, `"`)
	case v.ArrayValue != nil:
		items := make([]json.RawMessage, len(v.ArrayValue.Values))
		for i, e := range v.ArrayValue.Values {
			items[i] = e.json()
		}
		b, _ := json.Marshal(items)
		return b
	case v.KvlistValue != nil:
		b, _ := json.Marshal(kvMap(v.KvlistValue.Values))
		return b
	}
	return json.RawMessage("null")
}

func kvMap(kvs []otlpKeyValue) map[string]json.RawMessage {
	m := make(map[string]json.RawMessage, len(kvs))
	for _, kv := range kvs {
		v := kv.Value.json()
		if !json.Valid(v) {
			v = json.RawMessage("null")
		}
		m[kv.Key] = v
	}
	return m
}

// spanObject is one span as OTLP/JSON writes it, or as Phoenix exports it
// (snake_case, context object, attributes as a map).
type spanObject struct {
	TraceID           string          `json:"traceId"`
	TraceIDSnake      string          `json:"trace_id"`
	StartTimeUnixNano json.RawMessage `json:"startTimeUnixNano"`
	StartTime         json.RawMessage `json:"start_time"`
	Attributes        json.RawMessage `json:"attributes"`
	Context           *struct {
		TraceID string `json:"trace_id"`
	} `json:"context"`
}

// parseSpans reads one record: an OTLP export batch (batch true), one span
// object, or one flat map of span attributes.
func parseSpans(line int, data []byte) (spans []span, batch bool, err error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		if _, ok := err.(*json.UnmarshalTypeError); ok {
			return nil, false, errNotObject
		}
		return nil, false, describeJSONError(err)
	}
	if raw, ok := probe["resourceSpans"]; ok {
		spans, err := parseResourceSpans(line, raw)
		return spans, true, err
	}
	if raw, ok := probe["resourceLogs"]; ok {
		spans, err := otlpLogs(line, raw)
		return spans, true, err
	}
	if raw, ok := probe["attributes"]; ok {
		s, err := parseSpanObject(line, data, raw)
		return []span{s}, false, err
	}
	return []span{{line: line, attrs: flattenAttributes(probe)}}, false, nil
}

func parseResourceSpans(line int, raw json.RawMessage) ([]span, error) {
	var rs []struct {
		Resource   otlpResource `json:"resource"`
		ScopeSpans []struct {
			Spans []struct {
				TraceID           string          `json:"traceId"`
				StartTimeUnixNano json.RawMessage `json:"startTimeUnixNano"`
				Attributes        []otlpKeyValue  `json:"attributes"`
				Events            []struct {
					Name       string         `json:"name"`
					Attributes []otlpKeyValue `json:"attributes"`
				} `json:"events"`
			} `json:"spans"`
		} `json:"scopeSpans"`
	}
	if err := json.Unmarshal(raw, &rs); err != nil {
		return nil, describeJSONError(err)
	}
	var out []span
	for _, r := range rs {
		resource := kvMap(r.Resource.Attributes)
		for _, ss := range r.ScopeSpans {
			for _, s := range ss.Spans {
				start, err := parseTimestamp(s.StartTimeUnixNano)
				if err != nil {
					return nil, fmt.Errorf("span %s: startTimeUnixNano: %w", s.TraceID, err)
				}
				sp := span{line: line, traceID: s.TraceID, start: start,
					attrs: flattenAttributes(kvMap(s.Attributes)), resource: resource}
				for _, e := range s.Events {
					sp.events = append(sp.events, spanEvent{name: e.Name, attrs: kvMap(e.Attributes)})
				}
				out = append(out, sp)
			}
		}
	}
	return out, nil
}

func parseSpanObject(line int, data, attrs json.RawMessage) (span, error) {
	var obj spanObject
	if err := json.Unmarshal(data, &obj); err != nil {
		return span{}, describeJSONError(err)
	}
	s := span{line: line, traceID: obj.TraceID}
	if s.traceID == "" {
		s.traceID = obj.TraceIDSnake
	}
	if s.traceID == "" && obj.Context != nil {
		s.traceID = obj.Context.TraceID
	}
	var err error
	if s.start, err = parseTimestamp(firstNonEmpty(obj.StartTimeUnixNano, obj.StartTime)); err != nil {
		return span{}, fmt.Errorf("span start time: %w", err)
	}
	attrs = bytes.TrimSpace(attrs)
	switch {
	case len(attrs) > 0 && attrs[0] == '[':
		var kvs []otlpKeyValue
		if err := json.Unmarshal(attrs, &kvs); err != nil {
			return span{}, fmt.Errorf("attributes: %w", describeJSONError(err))
		}
		s.attrs = flattenAttributes(kvMap(kvs))
	case len(attrs) > 0 && attrs[0] == '{':
		var m map[string]json.RawMessage
		if err := json.Unmarshal(attrs, &m); err != nil {
			return span{}, fmt.Errorf("attributes: %w", describeJSONError(err))
		}
		s.attrs = flattenAttributes(m)
	default:
		return span{}, fmt.Errorf("attributes: must be an object or a list, got %s", jsonKind(attrs))
	}
	return s, nil
}

// flattenAttributes turns nested attribute objects ({"llm":{"model_name":…}})
// into dotted keys, the form the conventions define. Arrays of objects are
// flattened by index; other values are kept as they are.
func flattenAttributes(m map[string]json.RawMessage) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(m))
	var walk func(prefix string, raw json.RawMessage)
	walk = func(prefix string, raw json.RawMessage) {
		raw = bytes.TrimSpace(raw)
		if strings.HasPrefix(prefix, "gen_ai.") {
			// GenAI attributes are whole JSON documents, read as such.
			out[prefix] = raw
			return
		}
		if len(raw) > 0 && raw[0] == '{' {
			var inner map[string]json.RawMessage
			if json.Unmarshal(raw, &inner) == nil {
				for k, v := range inner {
					walk(prefix+"."+k, v)
				}
				return
			}
		}
		if len(raw) > 1 && raw[0] == '[' && bytes.HasPrefix(bytes.TrimSpace(raw[1:]), []byte("{")) {
			var inner []json.RawMessage
			if json.Unmarshal(raw, &inner) == nil {
				for i, v := range inner {
					walk(prefix+"."+strconv.Itoa(i), v)
				}
				return
			}
		}
		out[prefix] = raw
	}
	for k, v := range m {
		walk(k, v)
	}
	return out
}

// attrString reads a string attribute ("" when absent or not a string).
func attrString(attrs map[string]json.RawMessage, key string) string {
	raw, ok := attrs[key]
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return textOf(raw)
	}
	return s
}

// attrJSON reads an attribute holding JSON, either as text (the usual
// encoding of structured attributes) or as a structured value.
func attrJSON(attrs map[string]json.RawMessage, key string) json.RawMessage {
	raw, ok := attrs[key]
	if !ok {
		return nil
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return json.RawMessage(s)
		}
	}
	return raw
}
