package synth

import (
	"time"
	"unicode/utf8"

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
	dst = appendJSONString(dst, t.ID, true)
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
			dst = appendJSONString(dst, k, true)
			dst = append(dst, ':')
			dst = appendJSONString(dst, t.Metadata[k], true)
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
	dst = appendJSONString(dst, t.Name, true)
	if t.Description != "" {
		dst = append(dst, `,"description":`...)
		dst = appendJSONString(dst, t.Description, true)
	}
	if len(t.Parameters) > 0 {
		dst = append(dst, `,"parameters":`...)
		dst = appendRawHTMLSafe(dst, t.Parameters)
	}
	return append(dst, '}')
}

func appendMessage(dst []byte, m trace.Message) []byte {
	dst = append(dst, `{"role":`...)
	dst = appendJSONString(dst, m.Role, true)
	dst = append(dst, `,"content":`...)
	dst = appendJSONString(dst, m.Content, true)
	if m.Name != "" {
		dst = append(dst, `,"name":`...)
		dst = appendJSONString(dst, m.Name, true)
	}
	if m.ToolCallID != "" {
		dst = append(dst, `,"tool_call_id":`...)
		dst = appendJSONString(dst, m.ToolCallID, true)
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
		dst = appendJSONString(dst, c.ID, true)
		dst = append(dst, ',')
	}
	dst = append(dst, `"name":`...)
	dst = appendJSONString(dst, c.Name, true)
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
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			start = i + 1
		case b == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && (raw[i+2] == 0xA8 || raw[i+2] == 0xA9):
			dst = append(dst, raw[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[raw[i+2]&0xF])
			i += 2
			start = i + 1
		}
	}
	return append(dst, raw[start:]...)
}

const hexDigits = "0123456789abcdef"

// appendJSONString is encoding/json's string encoder: quotes, backslashes and
// control characters escaped, invalid UTF-8 replaced by U+FFFD, U+2028/U+2029
// escaped, and <, >, & escaped when html is set.
func appendJSONString(dst []byte, s string, html bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && (!html || (b != '<' && b != '>' && b != '&')) {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
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
