package jsonlex

import (
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Unquote returns the text of a string's content (between the quotes, as
// String returns it) exactly as encoding/json decodes it: escapes decoded,
// an unpaired surrogate escape and every byte that is not UTF-8 replaced by
// U+FFFD. ok is false for content no valid string has (a bad escape, a bare
// quote or control character). A FuzzUnquote test holds it to
// encoding/json.
//
// It is long because it is one switch over the escapes, kept whole for
// speed (it runs on every escaped string of every import).
func Unquote(content []byte) (s string, ok bool) {
	// Content that reads as itself (the common case) is one copy.
	r := 0
	for r < len(content) {
		c := content[r]
		if c == '\\' || c == '"' || c < ' ' {
			break
		}
		if c < utf8.RuneSelf {
			r++
			continue
		}
		rr, size := utf8.DecodeRune(content[r:])
		if rr == utf8.RuneError && size == 1 {
			break
		}
		r += size
	}
	if r == len(content) {
		return string(content), true
	}
	// The rest is written into a Builder (its String is not a copy).
	var b strings.Builder
	b.Grow(len(content))
	b.Write(content[:r])
	for r < len(content) {
		switch c := content[r]; {
		case c == '\\':
			r++
			if r >= len(content) {
				return "", false
			}
			switch e := content[r]; e {
			case '"', '\\', '/':
				b.WriteByte(e)
				r++
			case 'b':
				b.WriteByte('\b')
				r++
			case 'f':
				b.WriteByte('\f')
				r++
			case 'n':
				b.WriteByte('\n')
				r++
			case 'r':
				b.WriteByte('\r')
				r++
			case 't':
				b.WriteByte('\t')
				r++
			case 'u':
				rr := hex4(content[r-1:])
				if rr < 0 {
					return "", false
				}
				r += 5
				if utf16.IsSurrogate(rr) {
					if dec := utf16.DecodeRune(rr, hex4(content[r:])); dec != utf8.RuneError {
						b.WriteRune(dec)
						r += 6
						break
					}
					rr = utf8.RuneError
				}
				b.WriteRune(rr)
			default:
				return "", false
			}
		case c == '"', c < ' ':
			return "", false
		case c < utf8.RuneSelf:
			// A run of plain ASCII, written at once.
			end := r + 1
			for end < len(content) && content[end] >= ' ' && content[end] < utf8.RuneSelf && content[end] != '\\' && content[end] != '"' {
				end++
			}
			b.Write(content[r:end])
			r = end
		default:
			rr, size := utf8.DecodeRune(content[r:])
			r += size
			b.WriteRune(rr)
		}
	}
	return b.String(), true
}

// hex4 reads the rune of a \uXXXX escape at the start of s (-1 when there
// is none).
func hex4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// Text is the text of a string's content as String returned it (escaped
// and ascii as String reported them), as encoding/json decodes it.
func Text(content []byte, escaped, ascii bool) string {
	if Plain(content, escaped, ascii) {
		return string(content)
	}
	s, _ := Unquote(content) // the lexer has checked it
	return s
}

// StringOrNull reads a string or null ("" and ok false for null); what
// names the value in the error for anything else.
func (l *Lexer) StringOrNull(what string) (s string, ok bool, err error) {
	if l.Peek() == 'n' {
		_, err := l.Literal()
		return "", false, err
	}
	content, esc, ascii, err := l.String()
	if err != nil {
		return "", false, fmt.Errorf("%s must be a string", what)
	}
	return Text(content, esc, ascii), true, nil
}
