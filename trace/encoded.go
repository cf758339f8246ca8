package trace

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"hash"
	"slices"
	"sort"

	"github.com/goldtrace/goldtrace/internal/jsonlex"
)

// Encoded is a trace with the canonical JSON of its parts computed once:
// what an import stores and hashes. Its Items and hashes equal Items(t),
// ContentHash(t) and ToolHash(tool) for the same trace.
type Encoded struct {
	Trace Trace
	// Messages is the canonical JSON array of Trace.Messages.
	Messages []byte
	// ContentHash is ContentHash(Trace).
	ContentHash string
	// ToolHashes[i] is ToolHash(Trace.Tools[i]).
	ToolHashes []string
	// Items is Items(Trace).
	Items []Item
}

// Encoder encodes traces for storage, remembering the canonical encoding of
// the tool definitions it has seen (traces of one source usually offer the
// same tools). An Encoder is not safe for concurrent use.
type Encoder struct {
	buf     bytes.Buffer
	enc     *json.Encoder
	tools   map[toolKey]encodedTool
	scratch []byte
	hash    hash.Hash
	sum     [sha256.Size]byte
	// recent are the last tool lists encoded, the latest first
	// (recentToolLists at most): a log's traces offer a few lists, often
	// not the same twice in a row.
	recent []*lastTools
}

// recentToolLists is how many tool lists an Encoder remembers.
const recentToolLists = 8

// encoderToolLimit bounds how many distinct tools an Encoder remembers.
const encoderToolLimit = 4096

type encodedTool struct {
	canon []byte
	hash  string
}

// NewEncoder returns an Encoder with an empty tool cache.
func NewEncoder() *Encoder {
	e := &Encoder{tools: map[toolKey]encodedTool{}, hash: sha256.New()}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}

// Encode computes the canonical JSON, hashes and items of t.
func (e *Encoder) Encode(t Trace) (Encoded, error) {
	out := Encoded{Trace: t}
	tools, err := e.encodeTools(t.Tools)
	if err != nil {
		return Encoded{}, err
	}
	out.ToolHashes = make([]string, len(tools))
	for i, et := range tools {
		out.ToolHashes[i] = et.hash
	}
	msgs, ends, err := e.messages(t.Messages)
	if err != nil {
		return Encoded{}, err
	}
	out.Messages = msgs
	if out.ContentHash, err = e.contentHash(t, tools, msgs); err != nil {
		return Encoded{}, err
	}
	last := e.recent[0] // tools'
	if !last.sortedOK {
		last.sorted, last.sortedOK = sortedToolsJSON(t.Tools, tools), true
	}
	out.Items = itemsFrom(t, msgs, ends, last.sorted)
	return out, nil
}

// encodeTools returns the encoded tools, and puts them first in e.recent
// (their sorted JSON computed only if needed: see Encode).
func (e *Encoder) encodeTools(tools []Tool) ([]encodedTool, error) {
	for i, l := range e.recent {
		if l.same(tools) {
			copy(e.recent[1:i+1], e.recent[:i])
			e.recent[0] = l
			return l.enc, nil
		}
	}
	out := make([]encodedTool, len(tools))
	for i, tool := range tools {
		et, err := e.tool(tool)
		if err != nil {
			return nil, err
		}
		out[i] = et
	}
	// A copy: the caller may change its tools before the next trace.
	kept := make([]Tool, len(tools))
	for i, t := range tools {
		kept[i] = Tool{Name: t.Name, Description: t.Description, Parameters: bytes.Clone(t.Parameters)}
	}
	if len(e.recent) < recentToolLists {
		e.recent = append(e.recent, nil)
	}
	copy(e.recent[1:], e.recent)
	e.recent[0] = &lastTools{tools: kept, enc: out}
	return out, nil
}

// lastTools is a tool list an Encoder encoded (traces of one log offer
// the same tools, and a Reader gives them the same parameter bytes).
type lastTools struct {
	tools    []Tool
	enc      []encodedTool
	sorted   []byte // sortedToolsJSON of them, when sortedOK
	sortedOK bool
}

func (l *lastTools) same(tools []Tool) bool {
	if l.enc == nil || len(tools) != len(l.tools) {
		return false
	}
	for i, t := range tools {
		o := l.tools[i]
		if t.Name != o.Name || t.Description != o.Description || !bytes.Equal(t.Parameters, o.Parameters) {
			return false
		}
	}
	return true
}

// tool returns the canonical JSON and hash of one tool definition.
func (e *Encoder) tool(tool Tool) (encodedTool, error) {
	if et, ok := e.tools[keyOf(tool)]; ok {
		return et, nil
	}
	canon, err := e.marshal(tool)
	if err != nil {
		return encodedTool{}, err
	}
	sum := sha256.Sum256(canon)
	et := encodedTool{canon: canon, hash: hex.EncodeToString(sum[:])}
	if len(e.tools) >= encoderToolLimit {
		clear(e.tools)
	}
	e.tools[keyOf(tool)] = et
	return et, nil
}

// toolKey is a comparable stand-in for a Tool (whose Parameters is a slice).
type toolKey struct{ name, description, parameters string }

func keyOf(tool Tool) toolKey {
	return toolKey{tool.Name, tool.Description, string(tool.Parameters)}
}

// marshal is MarshalCanonical into a fresh slice, reusing the encoder.
func (e *Encoder) marshal(v any) ([]byte, error) {
	e.buf.Reset()
	if err := e.enc.Encode(v); err != nil {
		return nil, err
	}
	b := e.buf.Bytes()
	return bytes.Clone(b[:len(b)-1]), nil
}

// messages returns the canonical JSON array of msgs and, for each message,
// the offset in it where that message's encoding ends.
func (e *Encoder) messages(msgs []Message) ([]byte, []int, error) {
	if msgs == nil {
		return []byte("null"), nil, nil
	}
	if b, ends, ok := appendMessages(e.scratch[:0], msgs, make([]int, 0, len(msgs))); ok {
		e.scratch = b
		return bytes.Clone(b), ends, nil
	}
	e.buf.Reset()
	ends := make([]int, len(msgs))
	e.buf.WriteByte('[')
	for i := range msgs {
		if i > 0 {
			e.buf.WriteByte(',')
		}
		if err := e.enc.Encode(&msgs[i]); err != nil {
			return nil, nil, err
		}
		e.buf.Truncate(e.buf.Len() - 1) // the Encoder's newline
		ends[i] = e.buf.Len()
	}
	e.buf.WriteByte(']')
	return bytes.Clone(e.buf.Bytes()), ends, nil
}

// Calls returns MarshalCanonical(calls) (an item's observed calls).
func (e *Encoder) Calls(calls []Call) ([]byte, error) {
	if b, ok := appendCalls(e.scratch[:0], calls); ok {
		e.scratch = b
		return bytes.Clone(b), nil
	}
	return MarshalCanonical(calls)
}

// contentHash is ContentHash(t) assembled from the parts already encoded:
// the canonical JSON of t without its id, field by field as encoding/json
// writes a Trace.
func (e *Encoder) contentHash(t Trace, tools []encodedTool, msgs []byte) (string, error) {
	h := e.hash
	h.Reset()
	h.Write([]byte(`{"id":""`))
	if !t.Timestamp.IsZero() {
		ts, err := t.Timestamp.MarshalJSON()
		if err != nil {
			// Out of time.Time's JSON range: encoding/json's error.
			if ts, err = e.marshal(t.Timestamp); err != nil {
				return "", err
			}
		}
		h.Write([]byte(`,"timestamp":`))
		h.Write(ts)
	}
	if len(t.Metadata) > 0 {
		h.Write([]byte(`,"metadata":`))
		e.scratch = appendStringMap(e.scratch[:0], t.Metadata, false)
		h.Write(e.scratch)
	}
	h.Write([]byte(`,"tools":`))
	if t.Tools == nil {
		h.Write([]byte("null"))
	} else {
		writeToolArray(h, tools)
	}
	h.Write([]byte(`,"messages":`))
	h.Write(msgs)
	h.Write([]byte("}"))
	return hex.EncodeToString(h.Sum(e.sum[:0])), nil
}

// AppendMetadataJSON appends m as json.Marshal writes a map[string]string
// (keys sorted, HTML characters escaped), without its reflection.
func AppendMetadataJSON(dst []byte, m map[string]string) []byte {
	return appendStringMap(dst, m, true)
}

// appendStringMap appends m as encoding/json writes a map[string]string:
// keys sorted, strings escaped (HTML escaping when html is set).
func appendStringMap(dst []byte, m map[string]string, html bool) []byte {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonlex.AppendString(dst, k, html)
		dst = append(dst, ':')
		dst = jsonlex.AppendString(dst, m[k], html)
	}
	return append(dst, '}')
}

func writeToolArray(w hash.Hash, tools []encodedTool) {
	w.Write([]byte("["))
	for i, et := range tools {
		if i > 0 {
			w.Write([]byte(","))
		}
		w.Write(et.canon)
	}
	w.Write([]byte("]"))
}

// sortedToolsJSON is the canonical JSON of tools sorted by name, as
// InputHash encodes them (null when there are none).
func sortedToolsJSON(tools []Tool, enc []encodedTool) []byte {
	if len(tools) == 0 {
		return []byte("null")
	}
	order := make([]int, len(tools))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return tools[order[a]].Name < tools[order[b]].Name })
	size := len(tools) + 1
	for _, e := range enc {
		size += len(e.canon)
	}
	b := make([]byte, 0, size)
	b = append(b, '[')
	for i, j := range order {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, enc[j].canon...)
	}
	return append(b, ']')
}

// itemsFrom is Items(t) from the canonical message array msgs (ends[i] is
// where message i ends in it) and the sorted tools' JSON. The input hashes
// share one running sha256 of the growing context, so the work is linear in
// the size of the trace.
func itemsFrom(t Trace, msgs []byte, ends []int, sortedTools []byte) []Item {
	var out []Item
	prefix := sha256.New()
	prefix.Write([]byte(`{"context":`))
	fed := 0
	for i, m := range t.Messages {
		if m.Role != RoleAssistant {
			continue
		}
		upto := 1 // "[" alone: the empty context
		if i > 0 {
			upto = ends[i-1]
		}
		prefix.Write(msgs[fed:upto])
		fed = upto
		var h hash.Hash
		if c, err := prefix.(hash.Cloner).Clone(); err == nil {
			h = c
		} else {
			// sha256's digest always clones; hash from scratch otherwise.
			h = sha256.New()
			h.Write([]byte(`{"context":`))
			h.Write(msgs[:upto])
		}
		h.Write([]byte(`],"tools":`))
		h.Write(sortedTools)
		h.Write([]byte("}"))
		out = append(out, newItem(t, i, hex.EncodeToString(h.Sum(nil))))
	}
	return out
}
