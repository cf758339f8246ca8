// Package jsonlex is goldtrace's one JSON lexer: the number, string and
// escape rules of RFC 8259 (as encoding/json applies them) over a byte
// slice, in place and without allocating. The fast read paths (the
// scorer's value parser and gold/prediction readers, the dataset's
// canonical-form check, the store's label-call decoder) scan with it. The
// one string writer, AppendString, writes exactly encoding/json's bytes (a
// fuzz test holds it there), so hand-written encoders stay reproducible.
package jsonlex

import (
	"errors"
	"fmt"
	"unicode/utf8"
)

// MaxDepth bounds nesting so hostile input cannot exhaust the stack.
const MaxDepth = 512

// ErrSyntax is wrapped by every error the lexer returns.
var ErrSyntax = errors.New("invalid JSON")

// IsSpace reports whether c is JSON white space.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// NumberEnd returns the index just past the number that starts at b[i]
// (-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?), or -1 when none does.
func NumberEnd(b []byte, i int) int {
	digits := func() bool {
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > start
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return -1
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return -1
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return -1
		}
	}
	return i
}

// StringEnd scans the string whose opening quote is b[i] and returns the
// index just past its closing quote (-1 when it is not a valid string: a
// control character, a bad escape or no end), whether it holds escapes and
// whether it is all ASCII.
func StringEnd(b []byte, i int) (end int, escaped, ascii bool) {
	ascii = true
	for j := i + 1; j < len(b); j++ {
		for j < len(b) && plainByte[b[j]] {
			j++ // the common case, one test per byte
		}
		if j >= len(b) {
			break
		}
		switch c := b[j]; {
		case c == '"':
			return j + 1, escaped, ascii
		case c == '\\':
			escaped = true
			j++
			if j >= len(b) {
				return -1, escaped, ascii
			}
			switch b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(b) || !isHex(b[j+1]) || !isHex(b[j+2]) || !isHex(b[j+3]) || !isHex(b[j+4]) {
					return -1, escaped, ascii
				}
				j += 4
			default:
				return -1, escaped, ascii
			}
		case c < 0x20:
			return -1, escaped, ascii
		case c >= 0x80:
			ascii = false
		}
	}
	return -1, escaped, ascii
}

// plainByte[c]: c stands for itself inside a string (printable ASCII other
// than the quote and the backslash).
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// Plain reports whether a string's content (between the quotes) reads as
// itself: no escapes and valid UTF-8 (encoding/json replaces invalid bytes
// with U+FFFD).
func Plain(content []byte, escaped, ascii bool) bool {
	return !escaped && (ascii || utf8.Valid(content))
}

// Lexer walks one JSON text in place.
type Lexer struct {
	Data []byte
	Pos  int
}

// SkipSpace moves past white space.
func (l *Lexer) SkipSpace() {
	for l.Pos < len(l.Data) {
		if c := l.Data[l.Pos]; c > ' ' || !IsSpace(c) {
			return
		}
		l.Pos++
	}
}

// Peek returns the next byte after white space (0 at the end).
func (l *Lexer) Peek() byte {
	l.SkipSpace()
	if l.Pos >= len(l.Data) {
		return 0
	}
	return l.Data[l.Pos]
}

// Consume moves past c when it comes next (after white space).
func (l *Lexer) Consume(c byte) bool {
	if l.Peek() == c && l.Pos < len(l.Data) {
		l.Pos++
		return true
	}
	return false
}

// Fail is a syntax error at the current offset.
func (l *Lexer) Fail(what string) error {
	return fmt.Errorf("%w: %s at offset %d", ErrSyntax, what, l.Pos)
}

// String reads the string that comes next and returns its raw content
// (between the quotes, escapes not decoded).
func (l *Lexer) String() (content []byte, escaped, ascii bool, err error) {
	if l.Peek() != '"' {
		return nil, false, false, l.Fail("expected a string")
	}
	end, escaped, ascii := StringEnd(l.Data, l.Pos)
	if end < 0 {
		return nil, false, false, l.Fail("bad string")
	}
	content = l.Data[l.Pos+1 : end-1]
	l.Pos = end
	return content, escaped, ascii, nil
}

// Number reads the number that comes next and returns its literal.
func (l *Lexer) Number() ([]byte, error) {
	l.SkipSpace()
	end := NumberEnd(l.Data, l.Pos)
	if end < 0 {
		return nil, l.Fail("bad number")
	}
	lit := l.Data[l.Pos:end]
	l.Pos = end
	return lit, nil
}

// Literal reads true, false or null.
func (l *Lexer) Literal() ([]byte, error) {
	l.SkipSpace()
	for _, w := range [...]string{"true", "false", "null"} {
		if len(l.Data)-l.Pos >= len(w) && string(l.Data[l.Pos:l.Pos+len(w)]) == w {
			lit := l.Data[l.Pos : l.Pos+len(w)]
			l.Pos += len(w)
			return lit, nil
		}
	}
	return nil, l.Fail("bad literal")
}

// Skip moves past the value that comes next, checking its syntax, and
// returns its text.
func (l *Lexer) Skip() ([]byte, error) {
	l.SkipSpace()
	start := l.Pos
	if err := l.skip(0); err != nil {
		return nil, err
	}
	return l.Data[start:l.Pos], nil
}

func (l *Lexer) skip(depth int) error {
	if depth > MaxDepth {
		return l.Fail("nesting too deep")
	}
	switch c := l.Peek(); {
	case c == '{':
		return l.Object(func([]byte, bool) error { return l.skip(depth + 1) })
	case c == '[':
		return l.Array(func() error { return l.skip(depth + 1) })
	case c == '"':
		_, _, _, err := l.String()
		return err
	case c == '-' || c >= '0' && c <= '9':
		_, err := l.Number()
		return err
	case c == 0:
		return l.Fail("unexpected end")
	default:
		_, err := l.Literal()
		return err
	}
}

// Object reads the object that comes next, calling member for each member
// with its raw key; member must read the value.
func (l *Lexer) Object(member func(key []byte, escaped bool) error) error {
	if !l.Consume('{') {
		return l.Fail("expected an object")
	}
	if l.Consume('}') {
		return nil
	}
	for {
		key, escaped, _, err := l.String()
		if err != nil {
			return err
		}
		if !l.Consume(':') {
			return l.Fail("expected :")
		}
		if err := member(key, escaped); err != nil {
			return err
		}
		if l.Consume('}') {
			return nil
		}
		if !l.Consume(',') {
			return l.Fail("expected , or }")
		}
	}
}

// Array reads the array that comes next, calling element for each element;
// element must read it.
func (l *Lexer) Array(element func() error) error {
	if !l.Consume('[') {
		return l.Fail("expected an array")
	}
	if l.Consume(']') {
		return nil
	}
	for {
		if err := element(); err != nil {
			return err
		}
		if l.Consume(']') {
			return nil
		}
		if !l.Consume(',') {
			return l.Fail("expected , or ]")
		}
	}
}

// End checks that only white space is left.
func (l *Lexer) End() error {
	l.SkipSpace()
	if l.Pos != len(l.Data) {
		return l.Fail("trailing data")
	}
	return nil
}
