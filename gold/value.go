package gold

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/goldtrace/goldtrace/internal/jsonlex"
)

// The value tree: a JSON value parsed into a Forest of Nodes without
// reflection, so that arguments can be compared value by value (Equal)
// and walked by the scorer. Parsing allocates nothing unless a string
// holds escapes.

// Kind is the JSON type of a parsed value.
type Kind uint8

const (
	KindNull Kind = iota
	KindBool
	KindNumber
	KindString
	KindArray
	KindObject
)

func (k Kind) String() string {
	switch k {
	case KindNull:
		return "null"
	case KindBool:
		return "boolean"
	case KindNumber:
		return "number"
	case KindString:
		return "string"
	case KindArray:
		return "array"
	default:
		return "object"
	}
}

// Node is one parsed JSON value in a Forest. Children are linked through
// First/Next indices so a whole argument object lives in one reusable slice.
type Node struct {
	Kind  Kind
	Truth bool   // KindBool
	Text  []byte // number literal or decoded string (a slice of the input when unescaped)
	Key   []byte // the member name when this node is an object member
	Raw   []byte // the value's text as written
	First int32  // first child (array element or object member), -1 when none
	Next  int32  // next sibling, -1 when none
}

// Forest holds parsed values; Reset it between items to reuse its memory.
// A Forest is not safe for concurrent use.
type Forest struct {
	Nodes []Node
	// Normalize, when set, is tried on two strings whose bytes differ
	// before they are called unequal (it appends s's normal form to dst):
	// a scoring profile's string normalisation.
	Normalize    func(dst, s []byte) []byte
	normA, normB []byte
}

// Reset empties f, keeping its memory.
func (f *Forest) Reset() { f.Nodes = f.Nodes[:0] }

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = jsonlex.MaxDepth

var errSyntax = errors.New("invalid JSON")

// Parse adds the single JSON value in data to f and returns its index.
func (f *Forest) Parse(data []byte) (int32, error) {
	p := parser{f: f, data: data}
	p.skipSpace()
	idx, err := p.value(0)
	if err != nil {
		return -1, err
	}
	p.skipSpace()
	if p.pos != len(p.data) {
		return -1, fmt.Errorf("%w: trailing data at offset %d", errSyntax, p.pos)
	}
	return idx, nil
}

// Member returns the child of object o named key, or -1.
func (f *Forest) Member(o int32, key []byte) int32 {
	if o < 0 || f.Nodes[o].Kind != KindObject {
		return -1
	}
	for c := f.Nodes[o].First; c >= 0; c = f.Nodes[c].Next {
		if bytes.Equal(f.Nodes[c].Key, key) {
			return c
		}
	}
	return -1
}

// MemberString is Member with a string key.
func (f *Forest) MemberString(o int32, key string) int32 {
	if o < 0 || f.Nodes[o].Kind != KindObject {
		return -1
	}
	for c := f.Nodes[o].First; c >= 0; c = f.Nodes[c].Next {
		if string(f.Nodes[c].Key) == key {
			return c
		}
	}
	return -1
}

type parser struct {
	f    *Forest
	data []byte
	pos  int
}

func (p *parser) skipSpace() {
	for p.pos < len(p.data) && jsonlex.IsSpace(p.data[p.pos]) {
		p.pos++
	}
}

func (p *parser) fail(what string) error {
	return fmt.Errorf("%w: %s at offset %d", errSyntax, what, p.pos)
}

func (p *parser) add(n Node) int32 {
	p.f.Nodes = append(p.f.Nodes, n)
	return int32(len(p.f.Nodes) - 1)
}

func (p *parser) value(depth int) (int32, error) {
	if depth > maxDepth {
		return -1, p.fail("nesting too deep")
	}
	if p.pos >= len(p.data) {
		return -1, p.fail("unexpected end")
	}
	start := p.pos
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return -1, err
		}
		return p.add(Node{Kind: KindString, Text: s, Raw: p.data[start:p.pos], First: -1, Next: -1}), nil
	case c == 't':
		return p.literal("true", Node{Kind: KindBool, Truth: true})
	case c == 'f':
		return p.literal("false", Node{Kind: KindBool})
	case c == 'n':
		return p.literal("null", Node{Kind: KindNull})
	case c == '-' || (c >= '0' && c <= '9'):
		if err := p.number(); err != nil {
			return -1, err
		}
		lit := p.data[start:p.pos]
		return p.add(Node{Kind: KindNumber, Text: lit, Raw: lit, First: -1, Next: -1}), nil
	default:
		return -1, p.fail(fmt.Sprintf("unexpected %q", c))
	}
}

func (p *parser) literal(word string, n Node) (int32, error) {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return -1, p.fail("bad literal")
	}
	n.Raw = p.data[p.pos : p.pos+len(word)]
	p.pos += len(word)
	n.First, n.Next = -1, -1
	return p.add(n), nil
}

// number checks the JSON number grammar (jsonlex) and advances past it.
func (p *parser) number() error {
	end := jsonlex.NumberEnd(p.data, p.pos)
	if end < 0 {
		return p.fail("bad number")
	}
	p.pos = end
	return nil
}

// str reads a string (jsonlex's rules) and returns its content: a slice of
// the input when it reads as itself, a decoded copy otherwise.
func (p *parser) str() ([]byte, error) {
	start := p.pos
	end, escaped, ascii := jsonlex.StringEnd(p.data, p.pos)
	if end < 0 {
		return nil, p.fail("bad string")
	}
	p.pos = end
	content := p.data[start+1 : end-1]
	if jsonlex.Plain(content, escaped, ascii) {
		return content, nil
	}
	var s string
	if err := json.Unmarshal(p.data[start:end], &s); err != nil {
		return nil, fmt.Errorf("%w: bad string at offset %d", errSyntax, start)
	}
	return []byte(s), nil
}

// closes steps past close when it comes next, ending the container idx that
// began at start.
func (p *parser) closes(idx int32, start int, close byte) bool {
	if p.pos < len(p.data) && p.data[p.pos] == close {
		p.pos++
		p.f.Nodes[idx].Raw = p.data[start:p.pos]
		return true
	}
	return false
}

// afterElement steps past the ',' or the closing byte that follows an element
// of the container idx that began at start; done is true after the close.
func (p *parser) afterElement(idx int32, start int, close byte, unterminated, expected string) (done bool, err error) {
	p.skipSpace()
	if p.pos >= len(p.data) {
		return false, p.fail(unterminated)
	}
	if p.data[p.pos] == ',' {
		p.pos++
		return false, nil
	}
	if p.closes(idx, start, close) {
		return true, nil
	}
	return false, p.fail(expected)
}

func (p *parser) array(depth int) (int32, error) {
	start := p.pos
	idx := p.add(Node{Kind: KindArray, First: -1, Next: -1})
	p.pos++
	p.skipSpace()
	last := int32(-1)
	if p.closes(idx, start, ']') {
		return idx, nil
	}
	for {
		p.skipSpace()
		c, err := p.value(depth + 1)
		if err != nil {
			return -1, err
		}
		p.link(idx, &last, c)
		if done, err := p.afterElement(idx, start, ']', "unterminated array", "expected , or ]"); err != nil {
			return -1, err
		} else if done {
			return idx, nil
		}
	}
}

func (p *parser) object(depth int) (int32, error) {
	start := p.pos
	idx := p.add(Node{Kind: KindObject, First: -1, Next: -1})
	p.pos++
	p.skipSpace()
	last := int32(-1)
	if p.closes(idx, start, '}') {
		return idx, nil
	}
	for {
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return -1, p.fail("expected member name")
		}
		key, err := p.str()
		if err != nil {
			return -1, err
		}
		p.skipSpace()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return -1, p.fail("expected :")
		}
		p.pos++
		p.skipSpace()
		c, err := p.value(depth + 1)
		if err != nil {
			return -1, err
		}
		p.f.Nodes[c].Key = key
		p.unlinkKey(idx, &last, key) // a repeated key: the last one wins, as in encoding/json
		p.link(idx, &last, c)
		if done, err := p.afterElement(idx, start, '}', "unterminated object", "expected , or }"); err != nil {
			return -1, err
		} else if done {
			return idx, nil
		}
	}
}

// unlinkKey removes an earlier member named key from object parent.
func (p *parser) unlinkKey(parent int32, last *int32, key []byte) {
	prev := int32(-1)
	for c := p.f.Nodes[parent].First; c >= 0; c = p.f.Nodes[c].Next {
		if bytes.Equal(p.f.Nodes[c].Key, key) {
			next := p.f.Nodes[c].Next
			if prev < 0 {
				p.f.Nodes[parent].First = next
			} else {
				p.f.Nodes[prev].Next = next
			}
			if *last == c {
				*last = prev
			}
			return
		}
		prev = c
	}
}

func (p *parser) link(parent int32, last *int32, child int32) {
	if *last < 0 {
		p.f.Nodes[parent].First = child
	} else {
		p.f.Nodes[*last].Next = child
	}
	*last = child
}
