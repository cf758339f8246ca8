package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/goldtrace/goldtrace/trace"
)

// The parts of a trace every record of it shares: its messages, tools,
// metadata and id, each as the record writes it. A store keeps them in
// canonical JSON already, so most of the time they are taken as stored
// instead of being decoded and encoded again. Each fast path is taken only
// when the stored bytes are exactly what encoding them again would give
// (tests check the two paths agree), and falls back to decoding otherwise.

// messages returns the trace's messages and the record JSON of each. From
// MessagesJSON, only the messages at answer turns are decoded (their role
// and tool calls make the record); the others are left zero.
func (b *Builder) messages(tg TraceGold) ([]trace.Message, [][]byte, error) {
	if tg.Trace.Messages == nil && tg.MessagesJSON != nil {
		if elems, ok := splitStoredMessages(tg.MessagesJSON); ok {
			msgs := make([]trace.Message, len(elems))
			for _, a := range tg.Answers {
				if a.Turn < 0 || a.Turn >= len(elems) || msgs[a.Turn].Role != "" {
					continue // out of range: newRecord says so
				}
				var m trace.Message
				if err := json.Unmarshal(elems[a.Turn], &m); err != nil {
					return nil, nil, fmt.Errorf("messages: %w", err)
				}
				norm, err := normalizeMessages([]trace.Message{m})
				if err != nil {
					return nil, nil, err
				}
				msgs[a.Turn] = norm[0]
			}
			return msgs, elems, nil
		}
	}
	all := tg.Trace.Messages
	if all == nil && tg.MessagesJSON != nil {
		if err := json.Unmarshal(tg.MessagesJSON, &all); err != nil {
			return nil, nil, fmt.Errorf("messages: %w", err)
		}
	}
	msgs, err := normalizeMessages(all)
	if err != nil {
		return nil, nil, err
	}
	msgJSON := make([][]byte, len(msgs))
	for i := range msgs {
		if msgJSON[i], err = b.encode(msgs[i]); err != nil {
			return nil, nil, fmt.Errorf("message %d: %w", i, err)
		}
	}
	return msgs, msgJSON, nil
}

// splitStoredMessages cuts a stored messages array into its elements, the
// bytes of each message. It declines (false) anything but a compact array
// of objects, and anything holding a \u escape, which may encode
// differently once decoded: encoding/json writes invalid UTF-8 as \ufffd,
// and unparseable arguments are kept as json.Marshal quotes them, with <, >
// and & escaped. Otherwise the stored bytes are encoding/json's encoding
// of messages with canonical arguments (trace.Encoder wrote them), which is
// what decoding and encoding again gives.
func splitStoredMessages(raw []byte) ([][]byte, bool) {
	n := len(raw)
	if n < 2 || raw[0] != '[' || raw[n-1] != ']' || bytes.Contains(raw, []byte(`\u`)) {
		return nil, false
	}
	elems := [][]byte{}
	if n == 2 {
		return elems, true
	}
	for i := 1; ; {
		end, ok := objectEnd(raw[:n-1], i)
		if !ok {
			return nil, false
		}
		elems = append(elems, raw[i:end:end])
		switch {
		case end == n-1:
			return elems, true
		case raw[end] != ',':
			return nil, false
		}
		i = end + 1
	}
}

// objectEnd returns the end (exclusive) of the compact JSON object starting
// at b[i], or false when there is none: no '{' there, white space outside a
// string, or b ends first.
func objectEnd(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != '{' {
		return 0, false
	}
	depth, inString := 0, false
	for ; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++ // the escaped byte cannot end the string
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, true
			}
		case ' ', '\t', '\n', '\r':
			return 0, false
		}
	}
	return 0, false
}

// toolsJSON returns the record JSON of the trace's available tools,
// remembered per ToolsKey.
func (b *Builder) toolsJSON(tg TraceGold) ([]byte, error) {
	if tg.ToolsKey != "" {
		if j, ok := b.toolSets[tg.ToolsKey]; ok {
			return j, nil
		}
	}
	tools, err := b.tools(tg.Trace.Tools)
	if err != nil {
		return nil, err
	}
	if len(tools) == 0 {
		tools = []trace.Tool{}
	}
	j, err := b.encode(tools)
	if err != nil {
		return nil, fmt.Errorf("tools: %w", err)
	}
	if tg.ToolsKey != "" {
		if len(b.toolSets) >= builderToolSetLimit {
			clear(b.toolSets)
		}
		b.toolSets[tg.ToolsKey] = j
	}
	return j, nil
}

// builderToolSetLimit bounds how many tool sets a Builder remembers.
const builderToolSetLimit = 4096

// metadataJSON returns the record JSON of the trace's metadata. Stored
// metadata is json.Marshal's, which differs from the record's encoding only
// in escaping <, > and & as \u003c, \u003e and \u0026: without any \u
// escape the stored bytes are taken as they are.
func (b *Builder) metadataJSON(tg TraceGold) ([]byte, error) {
	meta := tg.Trace.Metadata
	if meta == nil && tg.MetadataJSON != nil {
		raw := tg.MetadataJSON
		if len(raw) > 0 && raw[0] == '{' && !bytes.Contains(raw, []byte(`\u`)) && json.Valid(raw) {
			return raw, nil
		}
		if err := json.Unmarshal(raw, &meta); err != nil {
			return nil, err
		}
	}
	if meta == nil {
		meta = map[string]string{}
	}
	return b.encode(meta)
}

// stringJSON returns the JSON string of s: printable ASCII without quotes
// or backslashes is written as it is, anything else through encoding/json.
func (b *Builder) stringJSON(s string) ([]byte, error) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return b.encode(s)
		}
	}
	return []byte(`"` + s + `"`), nil
}
