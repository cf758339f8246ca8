package store

import (
	"encoding/json"

	"github.com/goldtrace/goldtrace/internal/jsonlex"
	"github.com/goldtrace/goldtrace/review"
)

// decodeLabelCalls decodes a label's stored calls (the JSON array of
// {"tool","args"} the store writes) exactly as json.Unmarshal into
// []review.LabelCall would, but several times faster on the lead's status:
// the arguments alias raw (which the caller must not reuse), and tool
// names come from name (which may intern them). Anything outside the
// store's own shape — other keys, escaped tool names, non-object arguments,
// invalid JSON — goes to json.Unmarshal, so results and errors are the same.
func decodeLabelCalls(raw []byte, name func([]byte) string) ([]review.LabelCall, error) {
	if calls, ok := fastLabelCalls(raw, name); ok {
		return calls, nil
	}
	var calls []review.LabelCall
	err := json.Unmarshal(raw, &calls)
	return calls, err
}

// fastLabelCalls decodes raw when it has the store's shape; ok is false
// otherwise.
func fastLabelCalls(raw []byte, name func([]byte) string) (calls []review.LabelCall, ok bool) {
	if !json.Valid(raw) {
		return nil, false
	}
	p := labelCallsParser{b: raw}
	if !p.byte('[') {
		return nil, false
	}
	calls = []review.LabelCall{}
	if p.byte(']') {
		return calls, p.end()
	}
	for {
		c, ok := p.call(name)
		if !ok {
			return nil, false
		}
		calls = append(calls, c)
		if p.byte(']') {
			return calls, p.end()
		}
		if !p.byte(',') {
			return nil, false
		}
	}
}

// labelCallsParser walks JSON already known to be valid.
type labelCallsParser struct {
	b []byte
	i int
}

func (p *labelCallsParser) space() {
	for p.i < len(p.b) && jsonlex.IsSpace(p.b[p.i]) {
		p.i++
	}
}

// byte consumes c (after white space) when it comes next.
func (p *labelCallsParser) byte(c byte) bool {
	p.space()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *labelCallsParser) end() bool {
	p.space()
	return p.i == len(p.b)
}

// plainString reads a string without escapes and returns its contents.
func (p *labelCallsParser) plainString() ([]byte, bool) {
	if !p.byte('"') {
		return nil, false
	}
	end, escaped, ascii := jsonlex.StringEnd(p.b, p.i-1)
	if end < 0 || escaped || !ascii {
		return nil, false // escapes and non-ASCII (encoding/json fixes bad UTF-8)
	}
	s := p.b[p.i : end-1]
	p.i = end
	return s, true
}

// call reads one {"tool": "...", "args": {...}} object; the keys may come
// in any order, be missing or repeat (the last wins, as in encoding/json).
func (p *labelCallsParser) call(name func([]byte) string) (c review.LabelCall, ok bool) {
	if !p.byte('{') {
		return c, false
	}
	if p.byte('}') {
		return c, true
	}
	for {
		key, ok := p.plainString()
		if !ok || !p.byte(':') {
			return c, false
		}
		switch string(key) {
		case "tool":
			s, ok := p.plainString()
			if !ok {
				return c, false
			}
			c.Tool = name(s)
		case "args":
			p.space()
			if p.i >= len(p.b) || (p.b[p.i] != '{' && p.b[p.i] != '[') {
				return c, false
			}
			l := jsonlex.Lexer{Data: p.b, Pos: p.i}
			raw, err := l.Skip()
			if err != nil {
				return c, false
			}
			p.i = l.Pos
			c.Args = json.RawMessage(raw[:len(raw):len(raw)])
		default:
			return c, false
		}
		if p.byte('}') {
			return c, true
		}
		if !p.byte(',') {
			return c, false
		}
	}
}
