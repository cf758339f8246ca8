package trace

import (
	"github.com/goldtrace/goldtrace/internal/jsonlex"
)

// The functions below write messages and calls exactly as MarshalCanonical
// does (the field order and omitempty rules of their struct tags, strings
// escaped without HTML escaping, RawMessage compacted), without reflection.
// They report false for what they cannot write that way — arguments that
// are not compact, valid JSON — and the caller then uses MarshalCanonical,
// which compacts them or fails as it always did. FuzzAppendMessage holds
// them to MarshalCanonical's bytes.

// appendMessages appends the JSON array of msgs and, for each message, the
// offset in dst where its encoding ends.
func appendMessages(dst []byte, msgs []Message, ends []int) ([]byte, []int, bool) {
	dst = append(dst, '[')
	for i := range msgs {
		if i > 0 {
			dst = append(dst, ',')
		}
		var ok bool
		if dst, ok = appendMessage(dst, &msgs[i]); !ok {
			return dst, ends, false
		}
		ends = append(ends, len(dst))
	}
	return append(dst, ']'), ends, true
}

func appendMessage(dst []byte, m *Message) ([]byte, bool) {
	dst = append(dst, `{"role":`...)
	dst = jsonlex.AppendString(dst, m.Role, false)
	dst = append(dst, `,"content":`...)
	dst = jsonlex.AppendString(dst, m.Content, false)
	if m.Name != "" {
		dst = append(dst, `,"name":`...)
		dst = jsonlex.AppendString(dst, m.Name, false)
	}
	if m.ToolCallID != "" {
		dst = append(dst, `,"tool_call_id":`...)
		dst = jsonlex.AppendString(dst, m.ToolCallID, false)
	}
	if len(m.ToolCalls) > 0 {
		dst = append(dst, `,"tool_calls":`...)
		var ok bool
		if dst, ok = appendCalls(dst, m.ToolCalls); !ok {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

// appendCalls appends the JSON array of calls (null for a nil slice).
func appendCalls(dst []byte, calls []Call) ([]byte, bool) {
	if calls == nil {
		return append(dst, "null"...), true
	}
	dst = append(dst, '[')
	for i := range calls {
		if i > 0 {
			dst = append(dst, ',')
		}
		c := &calls[i]
		dst = append(dst, '{')
		if c.ID != "" {
			dst = append(dst, `"id":`...)
			dst = jsonlex.AppendString(dst, c.ID, false)
			dst = append(dst, ',')
		}
		dst = append(dst, `"name":`...)
		dst = jsonlex.AppendString(dst, c.Name, false)
		dst = append(dst, `,"arguments":`...)
		if c.Arguments == nil {
			dst = append(dst, "null"...)
		} else if !isCompactJSON(c.Arguments) {
			return dst, false
		} else {
			dst = append(dst, c.Arguments...)
		}
		if c.Unparseable {
			dst = append(dst, `,"unparseable":true`...)
		}
		dst = append(dst, '}')
	}
	return append(dst, ']'), true
}

// isCompactJSON reports whether b is one valid JSON value without white
// space outside its strings: what encoding/json writes for a RawMessage as
// it is. (Nesting deeper than jsonlex.MaxDepth reports false.)
func isCompactJSON(b []byte) bool {
	l := jsonlex.Lexer{Data: b}
	if _, err := l.Skip(); err != nil || l.Pos != len(b) {
		return false
	}
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			end, _, _ := jsonlex.StringEnd(b, i)
			i = end - 1
		case jsonlex.IsSpace(c):
			return false
		}
	}
	return true
}
