package synth

import (
	"time"

	"github.com/goldtrace/goldtrace/internal/jsonlex"
	"github.com/goldtrace/goldtrace/trace"
)

// The functions below write a trace.Trace exactly as json.Marshal does
// (field order and omitempty rules of trace's struct tags, HTML-safe string
// escaping, RawMessage compacted as is), without reflection, so benchmark
// inputs of a gigabyte are written at disk speed. TestAppendTraceMatchesMarshal
// holds them to json.Marshal's bytes.

// appendTrace appends the JSON of t followed by a newline.
func appendTrace(dst []byte, t trace.Trace, encodedTools map[string][]byte) []byte {
	dst = append(dst, `{"id":`...)
	dst = jsonlex.AppendString(dst, t.ID, true)
	if !t.Timestamp.IsZero() {
		dst = append(dst, `,"timestamp":"`...)
		dst = t.Timestamp.AppendFormat(dst, time.RFC3339Nano)
		dst = append(dst, '"')
	}
	if len(t.Metadata) > 0 {
		dst = append(dst, `,"metadata":{`...)
		for i, k := range sortedKeys(t.Metadata) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonlex.AppendString(dst, k, true)
			dst = append(dst, ':')
			dst = jsonlex.AppendString(dst, t.Metadata[k], true)
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `,"tools":`...)
	if t.Tools == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i, tool := range t.Tools {
			if i > 0 {
				dst = append(dst, ',')
			}
			if enc, ok := encodedTools[tool.Name]; ok {
				dst = append(dst, enc...)
			} else {
				dst = appendTool(dst, tool)
			}
		}
		dst = append(dst, ']')
	}
	dst = append(dst, `,"messages":`...)
	if t.Messages == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i, m := range t.Messages {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendMessage(dst, m)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}', '\n')
}

func appendTool(dst []byte, t trace.Tool) []byte {
	dst = append(dst, `{"name":`...)
	dst = jsonlex.AppendString(dst, t.Name, true)
	if t.Description != "" {
		dst = append(dst, `,"description":`...)
		dst = jsonlex.AppendString(dst, t.Description, true)
	}
	if len(t.Parameters) > 0 {
		dst = append(dst, `,"parameters":`...)
		dst = appendRawHTMLSafe(dst, t.Parameters)
	}
	return append(dst, '}')
}

func appendMessage(dst []byte, m trace.Message) []byte {
	dst = append(dst, `{"role":`...)
	dst = jsonlex.AppendString(dst, m.Role, true)
	dst = append(dst, `,"content":`...)
	dst = jsonlex.AppendString(dst, m.Content, true)
	if m.Name != "" {
		dst = append(dst, `,"name":`...)
		dst = jsonlex.AppendString(dst, m.Name, true)
	}
	if m.ToolCallID != "" {
		dst = append(dst, `,"tool_call_id":`...)
		dst = jsonlex.AppendString(dst, m.ToolCallID, true)
	}
	if len(m.ToolCalls) > 0 {
		dst = append(dst, `,"tool_calls":[`...)
		for i, c := range m.ToolCalls {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendCall(dst, c)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

func appendCall(dst []byte, c trace.Call) []byte {
	dst = append(dst, '{')
	if c.ID != "" {
		dst = append(dst, `"id":`...)
		dst = jsonlex.AppendString(dst, c.ID, true)
		dst = append(dst, ',')
	}
	dst = append(dst, `"name":`...)
	dst = jsonlex.AppendString(dst, c.Name, true)
	dst = append(dst, `,"arguments":`...)
	if len(c.Arguments) == 0 {
		dst = append(dst, "null"...)
	} else {
		dst = appendRawHTMLSafe(dst, c.Arguments)
	}
	if c.Unparseable {
		dst = append(dst, `,"unparseable":true`...)
	}
	return append(dst, '}')
}

// appendRawHTMLSafe appends compact JSON raw as json.Marshal writes a
// RawMessage: <, > and & (which can only occur inside strings) and the line
// separators U+2028/U+2029 are escaped. raw is compact already: every
// RawMessage built here comes from trace.Canonical or obj.json.
func appendRawHTMLSafe(dst []byte, raw []byte) []byte {
	start := 0
	for i := 0; i < len(raw); i++ {
		b := raw[i]
		switch {
		case b == '<' || b == '>' || b == '&':
			dst = append(dst, raw[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', jsonlex.HexDigits[b>>4], jsonlex.HexDigits[b&0xF])
			start = i + 1
		case b == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && (raw[i+2] == 0xA8 || raw[i+2] == 0xA9):
			dst = append(dst, raw[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', jsonlex.HexDigits[raw[i+2]&0xF])
			i += 2
			start = i + 1
		}
	}
	return append(dst, raw[start:]...)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// Insertion sort: metadata has a handful of keys.
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}
