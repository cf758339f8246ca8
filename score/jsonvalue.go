package score

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/goldtrace/goldtrace/internal/jsonlex"
)

// kind is the JSON type of a parsed value.
type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

func (k kind) String() string {
	switch k {
	case kindNull:
		return "null"
	case kindBool:
		return "boolean"
	case kindNumber:
		return "number"
	case kindString:
		return "string"
	case kindArray:
		return "array"
	default:
		return "object"
	}
}

// node is one parsed JSON value in a forest. Children are linked through
// first/next indices so a whole argument object lives in one reusable slice:
// parsing allocates nothing unless a string holds escapes.
type node struct {
	kind  kind
	truth bool   // kindBool
	text  []byte // number literal or decoded string (a slice of the input when unescaped)
	key   []byte // the member name when this node is an object member
	raw   []byte // the value's text as written
	first int32  // first child (array element or object member), -1 when none
	next  int32  // next sibling, -1 when none
}

// forest holds parsed values; reset it between items to reuse its memory.
type forest struct {
	nodes []node
}

func (f *forest) reset() { f.nodes = f.nodes[:0] }

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = jsonlex.MaxDepth

var errSyntax = errors.New("invalid JSON")

// parse adds the single JSON value in data to f and returns its index.
func (f *forest) parse(data []byte) (int32, error) {
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

// member returns the child of object o named key, or -1.
func (f *forest) member(o int32, key []byte) int32 {
	if o < 0 || f.nodes[o].kind != kindObject {
		return -1
	}
	for c := f.nodes[o].first; c >= 0; c = f.nodes[c].next {
		if bytes.Equal(f.nodes[c].key, key) {
			return c
		}
	}
	return -1
}

// memberString is member with a string key.
func (f *forest) memberString(o int32, key string) int32 {
	if o < 0 || f.nodes[o].kind != kindObject {
		return -1
	}
	for c := f.nodes[o].first; c >= 0; c = f.nodes[c].next {
		if string(f.nodes[c].key) == key {
			return c
		}
	}
	return -1
}

type parser struct {
	f    *forest
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

func (p *parser) add(n node) int32 {
	p.f.nodes = append(p.f.nodes, n)
	return int32(len(p.f.nodes) - 1)
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
		return p.add(node{kind: kindString, text: s, raw: p.data[start:p.pos], first: -1, next: -1}), nil
	case c == 't':
		return p.literal("true", node{kind: kindBool, truth: true})
	case c == 'f':
		return p.literal("false", node{kind: kindBool})
	case c == 'n':
		return p.literal("null", node{kind: kindNull})
	case c == '-' || (c >= '0' && c <= '9'):
		if err := p.number(); err != nil {
			return -1, err
		}
		lit := p.data[start:p.pos]
		return p.add(node{kind: kindNumber, text: lit, raw: lit, first: -1, next: -1}), nil
	default:
		return -1, p.fail(fmt.Sprintf("unexpected %q", c))
	}
}

func (p *parser) literal(word string, n node) (int32, error) {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return -1, p.fail("bad literal")
	}
	n.raw = p.data[p.pos : p.pos+len(word)]
	p.pos += len(word)
	n.first, n.next = -1, -1
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
		p.f.nodes[idx].raw = p.data[start:p.pos]
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
	idx := p.add(node{kind: kindArray, first: -1, next: -1})
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
	idx := p.add(node{kind: kindObject, first: -1, next: -1})
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
		p.f.nodes[c].key = key
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
	for c := p.f.nodes[parent].first; c >= 0; c = p.f.nodes[c].next {
		if bytes.Equal(p.f.nodes[c].key, key) {
			next := p.f.nodes[c].next
			if prev < 0 {
				p.f.nodes[parent].first = next
			} else {
				p.f.nodes[prev].next = next
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
		p.f.nodes[parent].first = child
	} else {
		p.f.nodes[*last].next = child
	}
	*last = child
}
