package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Canonical re-encodes a JSON value compactly with object keys sorted and
// numbers kept as written, so that equal values give equal bytes. It fails on
// anything that is not exactly one JSON value.
func Canonical(raw json.RawMessage) (json.RawMessage, error) {
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
