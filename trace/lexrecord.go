package trace

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/goldtrace/goldtrace/internal/jsonlex"
)

// recordLexer decodes a canonical record into the canonicalRecord that
// encoding/json would fill, in one pass over the bytes and without
// reflection: the import reads every record through it. It gives up (ok
// false) on whatever it is not certain to decode exactly as encoding/json
// does — a syntax or type error, a repeated key, a key that matches a field
// only when case is folded or escapes decoded, a null where a message or
// tool belongs, nesting deeper than jsonlex.MaxDepth — and the caller then
// decodes with encoding/json, which gives the same record or the error.
//
// The RawMessage fields of the record point into the data it reads, and
// its Messages and Tools into arrays the next record reuses.
type recordLexer struct {
	l jsonlex.Lexer
	// messages and tools keep the capacity of the last record's lists
	// (their elements are overwritten with zero values before use).
	messages []chatMessage
	tools    []chatTool
}

// field bits, to refuse a key given twice (encoding/json would merge or
// overwrite; the slow path does that).
type fieldSet uint16

func (s *fieldSet) add(bit int) bool {
	if *s&(1<<bit) != 0 {
		return false
	}
	*s |= 1 << bit
	return true
}

// record decodes data, which must hold one object and nothing else. A
// tools value that memo (nil for none) remembers is not decoded again: the
// record's toolsRaw is set and its Tools left nil.
func (x *recordLexer) record(data []byte, rec *canonicalRecord, memo *toolsMemo) bool {
	x.l = jsonlex.Lexer{Data: data}
	var seen fieldSet
	ok := x.object(func(key []byte) bool {
		switch string(key) {
		case "id":
			return seen.add(0) && x.str(&rec.ID)
		case "timestamp":
			return seen.add(1) && x.raw(&rec.Timestamp)
		case "metadata":
			return seen.add(2) && x.rawMap(&rec.Metadata)
		case "tools":
			if !seen.add(3) {
				return false
			}
			x.l.SkipSpace()
			start := x.l.Pos
			if known := memo.prefix(data[start:]); known != nil {
				// The same bytes as a value already decoded: the same
				// value, and it ends where they do.
				x.l.Pos += len(known)
				rec.toolsRaw = data[start:x.l.Pos]
				return true
			}
			if !reuse(x, &rec.Tools, &x.tools, x.tool) {
				return false
			}
			rec.toolsRaw = data[start:x.l.Pos]
			return true
		case "functions":
			return seen.add(4) && list(x, &rec.Functions, x.function)
		case "messages":
			return seen.add(5) && reuse(x, &rec.Messages, &x.messages, x.message)
		}
		return x.unknown(key, "id", "timestamp", "metadata", "tools", "functions", "messages")
	})
	return ok && x.l.End() == nil
}

func (x *recordLexer) message(m *chatMessage) bool {
	var seen fieldSet
	return x.object(func(key []byte) bool {
		switch string(key) {
		case "role":
			return seen.add(0) && x.str(&m.Role)
		case "content":
			return seen.add(1) && x.raw(&m.Content)
		case "name":
			return seen.add(2) && x.str(&m.Name)
		case "tool_call_id":
			return seen.add(3) && x.str(&m.ToolCallID)
		case "tool_calls":
			return seen.add(4) && list(x, &m.ToolCalls, x.call)
		case "function_call":
			return seen.add(5) && ptr(x, &m.FunctionCall, x.function)
		}
		return x.unknown(key, "role", "content", "name", "tool_call_id", "tool_calls", "function_call")
	})
}

func (x *recordLexer) call(c *chatCall) bool {
	var seen fieldSet
	return x.object(func(key []byte) bool {
		switch string(key) {
		case "id":
			return seen.add(0) && x.str(&c.ID)
		case "name":
			return seen.add(1) && x.str(&c.Name)
		case "arguments":
			return seen.add(2) && x.raw(&c.Arguments)
		case "function":
			return seen.add(3) && ptr(x, &c.Function, x.function)
		}
		return x.unknown(key, "id", "name", "arguments", "function")
	})
}

func (x *recordLexer) tool(t *chatTool) bool {
	var seen fieldSet
	return x.object(func(key []byte) bool {
		switch string(key) {
		case "type":
			return seen.add(0) && x.str(&t.Type)
		case "name":
			return seen.add(1) && x.str(&t.Name)
		case "description":
			return seen.add(2) && x.str(&t.Description)
		case "parameters":
			return seen.add(3) && x.raw(&t.Parameters)
		case "input_schema":
			return seen.add(4) && x.raw(&t.InputSchema)
		case "function":
			return seen.add(5) && ptr(x, &t.Function, x.function)
		}
		return x.unknown(key, "type", "name", "description", "parameters", "input_schema", "function")
	})
}

func (x *recordLexer) function(f *chatFunction) bool {
	var seen fieldSet
	return x.object(func(key []byte) bool {
		switch string(key) {
		case "name":
			return seen.add(0) && x.str(&f.Name)
		case "description":
			return seen.add(1) && x.str(&f.Description)
		case "arguments":
			return seen.add(2) && x.raw(&f.Arguments)
		case "parameters":
			return seen.add(3) && x.raw(&f.Parameters)
		}
		return x.unknown(key, "name", "description", "arguments", "parameters")
	})
}

// object reads an object, calling member for each key; member reads the
// value. Keys with escapes make it give up.
func (x *recordLexer) object(member func(key []byte) bool) bool {
	return x.l.Object(func(key []byte, escaped bool) error {
		if escaped || !member(key) {
			return errGiveUp
		}
		return nil
	}) == nil
}

// errGiveUp stops jsonlex's Object and Array where recordLexer gives up.
var errGiveUp = errors.New("not certain to decode as encoding/json")

// slice reads an array, calling element for each element, or null (a nil
// slice). empty makes the slice non-nil for [] as encoding/json does.
func (x *recordLexer) slice(element func() bool, empty func()) bool {
	switch x.l.Peek() {
	case 'n':
		_, err := x.l.Literal()
		return err == nil
	case '[':
	default:
		return false
	}
	n := 0
	if x.l.Array(func() error {
		n++
		if !element() {
			return errGiveUp
		}
		return nil
	}) != nil {
		return false
	}
	if n == 0 {
		empty()
	}
	return true
}

// list reads an array (or null) into *s as encoding/json fills a slice,
// each element with elem.
func list[T any](x *recordLexer, s *[]T, elem func(*T) bool) bool {
	return x.slice(func() bool {
		var zero T
		*s = append(*s, zero)
		return elem(&(*s)[len(*s)-1])
	}, func() { *s = []T{} })
}

// reuse reads an array (or null) into *s as list does, but into the
// array of buf, which keeps the larger array for the next record.
func reuse[T any](x *recordLexer, s, buf *[]T, elem func(*T) bool) bool {
	if !x.slice(func() bool {
		if *s == nil {
			*s = (*buf)[:0]
		}
		var zero T
		*s = append(*s, zero)
		return elem(&(*s)[len(*s)-1])
	}, func() { *s = []T{} }) {
		return false
	}
	if cap(*s) > cap(*buf) {
		*buf = (*s)[:0]
	}
	return true
}

// ptr reads an object into a new *p with read, or null (*p nil), as
// encoding/json fills a pointer.
func ptr[T any](x *recordLexer, p **T, read func(*T) bool) bool {
	if x.l.Peek() == 'n' {
		_, err := x.l.Literal()
		return err == nil
	}
	*p = new(T)
	return read(*p)
}

// str reads a string into s; null leaves s as it is (encoding/json's rule).
func (x *recordLexer) str(s *string) bool {
	l := &x.l
	if l.Peek() == 'n' {
		_, err := l.Literal()
		return err == nil
	}
	content, _, _, err := l.String()
	if err != nil {
		return false
	}
	v, ok := jsonlex.Unquote(content)
	*s = v
	return ok
}

// raw reads any value as its text (null is the text null, as
// json.RawMessage keeps it).
func (x *recordLexer) raw(r *json.RawMessage) bool {
	v, err := x.l.Skip()
	*r = v
	return err == nil
}

// rawMap reads an object of any values, or null (a nil map).
func (x *recordLexer) rawMap(m *map[string]json.RawMessage) bool {
	l := &x.l
	if l.Peek() == 'n' {
		_, err := l.Literal()
		return err == nil
	}
	if l.Peek() != '{' {
		return false
	}
	*m = map[string]json.RawMessage{}
	return l.Object(func(content []byte, _ bool) error {
		key, ok := jsonlex.Unquote(content)
		if _, dup := (*m)[key]; !ok || dup {
			return errGiveUp
		}
		v, err := l.Skip()
		if err != nil {
			return err
		}
		(*m)[key] = v
		return nil
	}) == nil
}

// unknown skips the value of a key that names no field, giving up when
// encoding/json would match it to one of fields by folding case (or, for
// keys that are not ASCII, might).
func (x *recordLexer) unknown(key []byte, fields ...string) bool {
	for _, c := range key {
		if c >= 0x80 {
			return false
		}
	}
	for _, f := range fields {
		if strings.EqualFold(string(key), f) {
			return false
		}
	}
	_, err := x.l.Skip()
	return err == nil
}

// lexFields reads the object raw holds, as encoding/json fills a struct
// whose fields are json.RawMessage tagged with names: vals[i] is the text
// of member names[i] (nil when absent). ok is false where it is not
// certain to agree with encoding/json (as for recordLexer: bad syntax, not
// an object, a repeated, escaped or case-folded key): the caller then uses
// encoding/json.
func lexFields(raw []byte, names ...string) (vals []json.RawMessage, ok bool) {
	x := recordLexer{l: jsonlex.Lexer{Data: raw}}
	vals = make([]json.RawMessage, len(names))
	ok = x.object(func(key []byte) bool {
		for i, n := range names {
			if string(key) == n {
				if vals[i] != nil {
					return false
				}
				return x.raw(&vals[i])
			}
		}
		return x.unknown(key, names...)
	})
	return vals, ok && x.l.End() == nil
}

// openAIRequest reads a chat-completions request as encoding/json would
// fill req (see recordLexer for when it gives up).
func (x *recordLexer) openAIRequest(data []byte, req *openAIRequest) bool {
	x.l = jsonlex.Lexer{Data: data}
	var seen fieldSet
	ok := x.object(func(key []byte) bool {
		switch string(key) {
		case "model":
			return seen.add(0) && x.str(&req.Model)
		case "messages":
			return seen.add(1) && list(x, &req.Messages, x.message)
		case "tools":
			return seen.add(2) && list(x, &req.Tools, x.tool)
		case "functions":
			return seen.add(3) && list(x, &req.Functions, x.function)
		case "metadata":
			return seen.add(4) && x.rawMap(&req.Metadata)
		}
		return x.unknown(key, "model", "messages", "tools", "functions", "metadata")
	})
	return ok && x.l.End() == nil
}

// openAIResponse reads a chat-completions response as encoding/json would
// fill resp.
func (x *recordLexer) openAIResponse(data []byte, resp *openAIResponse) bool {
	x.l = jsonlex.Lexer{Data: data}
	var seen fieldSet
	ok := x.object(func(key []byte) bool {
		switch string(key) {
		case "id":
			return seen.add(0) && x.str(&resp.ID)
		case "created":
			return seen.add(1) && x.raw(&resp.Created)
		case "created_at":
			return seen.add(2) && x.raw(&resp.CreatedAt)
		case "model":
			return seen.add(3) && x.str(&resp.Model)
		case "choices":
			return seen.add(4) && list(x, &resp.Choices, func(c *openAIChoice) bool {
				var cseen fieldSet
				return x.object(func(key []byte) bool {
					if string(key) == "message" {
						return cseen.add(0) && ptr(x, &c.Message, x.message)
					}
					return x.unknown(key, "message")
				})
			})
		case "message":
			return seen.add(5) && ptr(x, &resp.Message, x.message)
		case "error":
			return seen.add(6) && x.raw(&resp.Error)
		}
		return x.unknown(key, "id", "created", "created_at", "model", "choices", "message", "error")
	})
	return ok && x.l.End() == nil
}

// envelope reads a logged exchange's envelope as encoding/json would fill
// env.
func (x *recordLexer) envelope(data []byte, env *providerEnvelope) bool {
	var e providerEnvelope
	var meta json.RawMessage
	if !lexFlat(data, flatField{name: "id", r: &e.ID}, flatField{name: "custom_id", s: &e.CustomID},
		flatField{name: "timestamp", r: &e.Timestamp}, flatField{name: "metadata", r: &meta},
		flatField{name: "request", r: &e.Request}, flatField{name: "request_body", r: &e.RequestBody},
		flatField{name: "body", r: &e.Body}, flatField{name: "response", r: &e.Response},
		flatField{name: "response_body", r: &e.ResponseBody}, flatField{name: "choices", r: &e.Choices},
		flatField{name: "messages", r: &e.Messages}, flatField{name: "contents", r: &e.Contents},
		flatField{name: "input", r: &e.Input}, flatField{name: "inputText", r: &e.InputText},
		flatField{name: "object", s: &e.Object}, flatField{name: "uri", s: &e.URI},
		flatField{name: "url", s: &e.URL}, flatField{name: "output", r: &e.Output}) {
		return false
	}
	if meta != nil {
		x.l = jsonlex.Lexer{Data: meta}
		if !x.rawMap(&e.Metadata) {
			return false
		}
	}
	*env = e
	return true
}

// flatField is a member lexFlat reads: into s (a string) or r (any value).
type flatField struct {
	name string
	s    *string
	r    *json.RawMessage
}

// lexFlat reads the object data holds as encoding/json fills a struct of
// string and json.RawMessage fields (null leaves a string as it is). On
// false (see lexFields) the fields may be half written: the caller resets
// them before using encoding/json.
func lexFlat(data []byte, fields ...flatField) bool {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	v, ok := lexFields(data, names...)
	if !ok {
		return false
	}
	for i, f := range fields {
		switch {
		case f.r != nil:
			*f.r = v[i]
		case v[i] == nil || string(v[i]) == "null":
		case v[i][0] == '"':
			var err error
			if *f.s, err = decodeString(v[i]); err != nil {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// anthropicRequest reads a Messages API request as encoding/json would
// fill req.
func (x *recordLexer) anthropicRequest(data []byte, req *anthropicRequest) bool {
	x.l = jsonlex.Lexer{Data: data}
	var seen fieldSet
	ok := x.object(func(key []byte) bool {
		switch string(key) {
		case "model":
			return seen.add(0) && x.str(&req.Model)
		case "system":
			return seen.add(1) && x.raw(&req.System)
		case "messages":
			return seen.add(2) && list(x, &req.Messages, func(m *anthropicMessage) bool {
				raw, err := x.l.Skip()
				return err == nil && lexFlat(raw, flatField{name: "role", s: &m.Role}, flatField{name: "content", r: &m.Content})
			})
		case "tools":
			return seen.add(3) && list(x, &req.Tools, x.tool)
		case "metadata":
			return seen.add(4) && x.rawMap(&req.Metadata)
		}
		return x.unknown(key, "model", "system", "messages", "tools", "metadata")
	})
	return ok && x.l.End() == nil
}

// anthropicBlocks reads a list of content blocks as encoding/json would
// fill blocks.
func (x *recordLexer) anthropicBlocks(data []byte, blocks *[]anthropicBlock) bool {
	x.l = jsonlex.Lexer{Data: data}
	ok := list(x, blocks, func(b *anthropicBlock) bool {
		raw, err := x.l.Skip()
		return err == nil && lexFlat(raw, flatField{name: "type", s: &b.Type}, flatField{name: "text", s: &b.Text},
			flatField{name: "id", s: &b.ID}, flatField{name: "name", s: &b.Name}, flatField{name: "input", r: &b.Input},
			flatField{name: "tool_use_id", s: &b.ToolUseID}, flatField{name: "content", r: &b.Content})
	})
	return ok && x.l.End() == nil
}
