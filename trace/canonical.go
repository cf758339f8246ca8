package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/goldtrace/goldtrace/internal/jsonlex"
)

// Canonical re-encodes a JSON value compactly with object keys sorted and
// numbers kept as written, so that equal values give equal bytes. It fails on
// anything that is not exactly one JSON value.
func Canonical(raw json.RawMessage) (json.RawMessage, error) {
	if trimmed := bytes.Trim(raw, " \t\r\n"); IsCanonical(trimmed) {
		// Already in canonical form (arguments goldtrace exported, and
		// most a model writes): decoding and encoding would give it back.
		return bytes.Clone(trimmed), nil
	}
	v, err := decodeNumbers(raw)
	if err != nil {
		return nil, err
	}
	return MarshalCanonical(v)
}

// MarshalCanonical encodes v compactly without HTML escaping. Maps are
// written with sorted keys (encoding/json's rule), so the output of a value
// decoded with UseNumber is canonical.
func MarshalCanonical(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode canonical JSON: %w", err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// IsCanonical reports whether raw is one JSON value exactly as Canonical
// writes it: compact, object keys (decoded) strictly increasing, strings
// escaped as encoding/json escapes them without HTML escaping, valid UTF-8.
// Nesting deeper than jsonlex.MaxDepth is reported as not canonical (the
// slow path decides).
func IsCanonical(raw []byte) bool {
	c := canonChecker{b: raw}
	return c.value(0) && c.i == len(raw)
}

type canonChecker struct {
	b       []byte
	i       int
	scratch []byte
}

func (c *canonChecker) value(depth int) bool {
	if c.i >= len(c.b) || depth > jsonlex.MaxDepth {
		return false
	}
	switch b := c.b[c.i]; {
	case b == '{':
		return c.object(depth)
	case b == '[':
		return c.array(depth)
	case b == '"':
		_, ok := c.str()
		return ok
	case b == '-' || b >= '0' && b <= '9':
		end := jsonlex.NumberEnd(c.b, c.i)
		c.i = end
		return end >= 0
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if bytes.HasPrefix(c.b[c.i:], []byte(lit)) {
			c.i += len(lit)
			return true
		}
	}
	return false
}

func (c *canonChecker) object(depth int) bool {
	c.i++ // {
	if c.i < len(c.b) && c.b[c.i] == '}' {
		c.i++
		return true
	}
	var prev []byte
	for first := true; ; first = false {
		key, ok := c.str()
		if !ok || !first && bytes.Compare(prev, key) >= 0 || c.i >= len(c.b) || c.b[c.i] != ':' {
			return false
		}
		prev = key
		c.i++
		if !c.value(depth+1) || c.i >= len(c.b) {
			return false
		}
		switch c.b[c.i] {
		case ',':
			c.i++
		case '}':
			c.i++
			return true
		default:
			return false
		}
	}
}

func (c *canonChecker) array(depth int) bool {
	c.i++ // [
	if c.i < len(c.b) && c.b[c.i] == ']' {
		c.i++
		return true
	}
	for {
		if !c.value(depth+1) || c.i >= len(c.b) {
			return false
		}
		switch c.b[c.i] {
		case ',':
			c.i++
		case ']':
			c.i++
			return true
		default:
			return false
		}
	}
}

// str checks a string that encoding/json would write back as it is and
// returns its text.
func (c *canonChecker) str() ([]byte, bool) {
	if c.i >= len(c.b) || c.b[c.i] != '"' {
		return nil, false
	}
	end, escaped, ascii := jsonlex.StringEnd(c.b, c.i)
	if end < 0 {
		return nil, false
	}
	lit := c.b[c.i:end]
	c.i = end
	content := lit[1 : len(lit)-1]
	if !escaped {
		if !ascii && (!utf8.Valid(content) || bytes.Contains(content, []byte("\u2028")) || bytes.Contains(content, []byte("\u2029"))) {
			return nil, false
		}
		return content, true
	}
	s, ok := jsonlex.Unquote(content)
	if !ok {
		return nil, false
	}
	c.scratch = jsonlex.AppendString(c.scratch[:0], s, false)
	return []byte(s), bytes.Equal(c.scratch, lit)
}
