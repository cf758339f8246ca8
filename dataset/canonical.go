package dataset

import (
	"bytes"
	"encoding/json"

	"github.com/goldtrace/goldtrace/internal/jsonlex"
	"github.com/goldtrace/goldtrace/trace"
)

// canonical is trace.Canonical with a fast path: JSON that is already in
// canonical form (what the store holds) is recognised by one scan without
// decoding and returned as is. Anything the scan is unsure of — escapes,
// non-ASCII text, white space, unsorted or repeated keys — takes the slow
// path, so the result is always exactly trace.Canonical's.
func canonical(raw json.RawMessage) (json.RawMessage, error) {
	if isCanonical(raw) {
		return raw, nil
	}
	return trace.Canonical(raw)
}

// isCanonical reports whether raw is one JSON value, compact, with object
// keys strictly increasing and strings of plain ASCII without escapes.
func isCanonical(raw []byte) bool {
	s := canonScanner{b: raw}
	return s.value() && s.i == len(raw)
}

type canonScanner struct {
	b []byte
	i int
}

func (s *canonScanner) value() bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return s.object()
	case c == '[':
		return s.array()
	case c == '"':
		_, ok := s.str()
		return ok
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
				s.i += len(lit)
				return true
			}
		}
		return false
	}
}

func (s *canonScanner) object() bool {
	s.i++ // {
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true
	}
	var prev []byte
	for first := true; ; first = false {
		key, ok := s.str()
		if !ok || !first && string(key) <= string(prev) {
			return false
		}
		prev = key
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		if !s.value() || s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

func (s *canonScanner) array() bool {
	s.i++ // [
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return true
	}
	for {
		if !s.value() || s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

// str scans a string of printable ASCII other than '\\', '<', '>' and '&'
// (the characters some encoders escape) and returns its content.
func (s *canonScanner) str() ([]byte, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false
	}
	end, escaped, ascii := jsonlex.StringEnd(s.b, s.i)
	if end < 0 || escaped || !ascii {
		return nil, false
	}
	content := s.b[s.i+1 : end-1]
	if bytes.ContainsAny(content, "<>&\x7f") {
		return nil, false
	}
	s.i = end
	return content, true
}

// number scans a JSON number (jsonlex's grammar).
func (s *canonScanner) number() bool {
	end := jsonlex.NumberEnd(s.b, s.i)
	if end < 0 {
		return false
	}
	s.i = end
	return true
}
