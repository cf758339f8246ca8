package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// The parts of a trace every record of it shares: its messages, tools,
// metadata and id, each as the record writes it. A store keeps them in
// canonical JSON already, so most of the time they are taken as stored
// instead of being decoded and encoded again. Each fast path is taken only
// when the stored bytes are exactly what encoding them again would give
// (tests check the two paths agree), and falls back to decoding otherwise.

// conversation is a trace's messages as the records write them.
type conversation struct {
	// msgs are the messages; from MessagesJSON, only the role and tool
	// calls of those at answer turns are decoded (what makes the record),
	// the rest is left zero.
	msgs []trace.Message
	// joined is the JSON of the messages joined by commas, and ends[i] the
	// end of message i in it: the messages before turn t are joined[:ends[t-1]].
	joined []byte
	ends   []int
}

// upTo returns the JSON of the messages before turn, joined by commas.
func (c conversation) upTo(turn int) []byte {
	if turn <= 0 {
		return nil
	}
	return c.joined[:c.ends[turn-1]:c.ends[turn-1]]
}

// messages returns the trace's conversation. Stored messages are taken as
// they are when splitStoredMessages accepts them.
func (b *Builder) messages(tg TraceGold) (conversation, error) {
	if tg.Trace.Messages == nil && tg.MessagesJSON != nil {
		if ends, ok := splitStoredMessages(tg.MessagesJSON); ok {
			c := conversation{msgs: make([]trace.Message, len(ends)), joined: tg.MessagesJSON[1 : len(tg.MessagesJSON)-1], ends: ends}
			for _, a := range tg.Answers {
				if a.Turn < 0 || a.Turn >= len(ends) || c.msgs[a.Turn].Role != "" {
					continue // out of range: newRecord says so
				}
				start := 0
				if a.Turn > 0 {
					start = ends[a.Turn-1] + 1 // after the comma
				}
				// Only what a record takes from the message is decoded.
				var m struct {
					Role      string       `json:"role"`
					ToolCalls []trace.Call `json:"tool_calls"`
				}
				if err := json.Unmarshal(c.joined[start:ends[a.Turn]], &m); err != nil {
					return conversation{}, fmt.Errorf("messages: %w", err)
				}
				norm, err := normalizeMessages([]trace.Message{{Role: m.Role, ToolCalls: m.ToolCalls}})
				if err != nil {
					return conversation{}, err
				}
				c.msgs[a.Turn] = norm[0]
			}
			return c, nil
		}
	}
	all := tg.Trace.Messages
	if all == nil && tg.MessagesJSON != nil {
		if err := json.Unmarshal(tg.MessagesJSON, &all); err != nil {
			return conversation{}, fmt.Errorf("messages: %w", err)
		}
	}
	msgs, err := normalizeMessages(all)
	if err != nil {
		return conversation{}, err
	}
	c := conversation{msgs: msgs, ends: make([]int, len(msgs))}
	for i := range msgs {
		if i > 0 {
			c.joined = append(c.joined, ',')
		}
		m, err := b.encode(msgs[i])
		if err != nil {
			return conversation{}, fmt.Errorf("message %d: %w", i, err)
		}
		c.joined = append(c.joined, m...)
		c.ends[i] = len(c.joined)
	}
	return c, nil
}

// splitStoredMessages checks that raw, a stored messages array, can be
// taken as it is, and returns where each message ends in raw[1:len(raw)-1]
// (the messages joined by commas). It declines (false) anything but a
// compact array of objects, and anything holding a \u escape, which may
// encode differently once decoded: encoding/json writes invalid UTF-8 as
// \ufffd, and unparseable arguments are kept as json.Marshal quotes them,
// with <, > and & escaped. Otherwise the stored bytes are encoding/json's
// encoding of messages with canonical arguments (trace.Encoder wrote
// them), which is what decoding and encoding again gives.
func splitStoredMessages(raw []byte) ([]int, bool) {
	n := len(raw)
	if n < 2 || raw[0] != '[' || raw[n-1] != ']' || bytes.Contains(raw, []byte(`\u`)) {
		return nil, false
	}
	ends := []int{}
	if n == 2 {
		return ends, true
	}
	for i := 1; ; {
		end, ok := objectEnd(raw[:n-1], i)
		if !ok {
			return nil, false
		}
		ends = append(ends, end-1)
		switch {
		case end == n-1:
			return ends, true
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

// ToolVersion is one tool as an item offered it: its name and the first 16
// hex digits of trace.ToolHash (its name, description and schema).
type ToolVersion struct {
	Name string
	Hash string
}

// ShortToolHash is the tool's version as manifests and drift reports show it.
func ShortToolHash(t trace.Tool) (string, error) {
	h, err := trace.ToolHash(t)
	if err != nil {
		return "", err
	}
	return shortHash(h), nil
}

// toolVersions hashes the trace's tools (once per tool set).
func (b *Builder) toolVersions(tg TraceGold) ([]ToolVersion, error) {
	if tg.ToolsKey != "" {
		if v, ok := b.versions[tg.ToolsKey]; ok {
			return v, nil
		}
	}
	// Hashed as the record writes them (parameters canonical), so a
	// record's tools hash to what its catalogue and the manifest say.
	tools, err := b.tools(tg.Trace.Tools)
	if err != nil {
		return nil, err
	}
	out := make([]ToolVersion, len(tools))
	for i, t := range tools {
		h, err := ShortToolHash(t)
		if err != nil {
			return nil, err
		}
		out[i] = ToolVersion{t.Name, h}
	}
	if tg.ToolsKey != "" {
		if len(b.versions) >= builderToolSetLimit {
			clear(b.versions)
		}
		b.versions[tg.ToolsKey] = out
	}
	return out, nil
}

// catalogueJSON is the record's "catalogue" member (with its leading
// comma) of tools of these versions, remembered per key; nil in
// gold.RecordFormat1. The versions are ShortToolHash's, which is what
// gold.CatalogueOf gives.
func (b *Builder) catalogueJSON(key string, versions []ToolVersion) []byte {
	if b.format < gold.RecordFormat2 {
		return nil
	}
	if j, ok := b.cats[key]; ok && key != "" {
		return j
	}
	cat := make(map[string]string, len(versions))
	for _, v := range versions {
		cat[v.Name] = v.Hash
	}
	j, _ := b.rec.AppendValue([]byte(`,"catalogue":`), cat) // a map of strings always encodes
	if key != "" {
		if len(b.cats) >= builderToolSetLimit {
			clear(b.cats)
		}
		b.cats[key] = j
	}
	return j
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
