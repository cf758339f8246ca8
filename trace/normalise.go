package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/goldtrace/goldtrace/internal/jsonlex"
)

// schemaCache remembers normalised tool schemas by their raw bytes: the same
// tool definitions repeat on every record of a log, and canonicalising them
// is the costliest part of parsing. It is per reader and bounded.
type schemaCache map[string]json.RawMessage

const schemaCacheMax = 4096

// normaliseSchema returns a tool's JSON Schema in canonical form with every
// "type":"dict" (a Python-ism some datasets use) replaced by "object" and
// the OpenAPI types in capitals Gemini uses ("STRING", "OBJECT") in lower
// case, as JSON Schema spells them.
func (c schemaCache) normaliseSchema(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		// Some logs carry the schema as a JSON string.
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		raw = json.RawMessage(s)
	}
	if out, ok := c[string(raw)]; ok {
		return out, nil
	}
	v, err := decodeNumbers(raw)
	if err != nil {
		return nil, fmt.Errorf("parameters: %w", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, errors.New("parameters: must be a JSON Schema object")
	}
	out, err := MarshalCanonical(dictToObject(v))
	if err != nil {
		return nil, err
	}
	if len(c) >= schemaCacheMax {
		clear(c)
	}
	c[string(raw)] = out
	return out, nil
}

func dictToObject(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "type" {
				switch e {
				case "dict":
					x[k] = "object"
					continue
				case "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL":
					x[k] = strings.ToLower(e.(string))
					continue
				}
			}
			x[k] = dictToObject(e)
		}
	case []any:
		for i, e := range x {
			x[i] = dictToObject(e)
		}
	}
	return v
}

// decodeNumbers decodes exactly one JSON value keeping numbers as written.
func decodeNumbers(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	// Exactly one value: anything after it but white space (another value,
	// or a stray "]" that More does not report) is an error.
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

// decodeString is json.Unmarshal of raw into a string, without its
// reflection when raw is one string literal (what it nearly always is).
func decodeString(raw []byte) (string, error) {
	if end, _, _ := jsonlex.StringEnd(raw, 0); len(raw) > 0 && raw[0] == '"' && end == len(raw) {
		if s, ok := jsonlex.Unquote(raw[1 : end-1]); ok {
			return s, nil
		}
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}

// callFromJSON builds a Call whose arguments came as JSON: a string holds the
// model's raw argument text (OpenAI), anything else is the arguments
// themselves (Anthropic's input, OTel parts).
func callFromJSON(id, name string, args json.RawMessage) (Call, error) {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		return NewCall(id, name, ""), nil
	}
	if args[0] == '"' {
		s, err := decodeString(args)
		if err != nil {
			return Call{}, fmt.Errorf("arguments: %w", err)
		}
		return NewCall(id, name, s), nil
	}
	canon, err := Canonical(args)
	if err != nil {
		return Call{}, fmt.Errorf("arguments: %w", err)
	}
	return Call{ID: id, Name: name, Arguments: canon}, nil
}

// contentPart is one element of a multi-part message content, in the
// shapes OpenAI, Anthropic and OTel GenAI use for text.
type contentPart struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Content json.RawMessage `json:"content"`
}

// flattenContent turns message content (a string, null, or an array of
// parts) into text: the text parts joined by newlines; other parts (images,
// audio) are left out.
func flattenContent(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	switch raw[0] {
	case '"':
		return decodeString(raw)
	case '[':
		var parts []contentPart
		if err := json.Unmarshal(raw, &parts); err != nil {
			return "", fmt.Errorf("content: %w", describeJSONError(err))
		}
		var texts []string
		for _, p := range parts {
			switch {
			case p.Text != "":
				texts = append(texts, p.Text)
			case len(p.Content) > 0 && p.Content[0] == '"':
				var s string
				if json.Unmarshal(p.Content, &s) == nil && s != "" {
					texts = append(texts, s)
				}
			}
		}
		return strings.Join(texts, "\n"), nil
	}
	return "", fmt.Errorf("content: must be a string or an array of parts, got %s", jsonKind(raw))
}

// textOf renders a JSON value as text: strings as themselves, anything else
// as compact JSON (a tool result that is an object, say).
func textOf(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		if s, err := decodeString(raw); err == nil {
			return s
		}
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) == nil {
		return buf.String()
	}
	return string(raw)
}

// metadataValue stringifies one metadata value: strings as they are, numbers
// as written, booleans as true/false, objects and arrays as compact JSON.
// Null is dropped (ok false).
func metadataValue(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	return textOf(raw), true
}

// decodeMetadata turns a metadata object into the string map.
func decodeMetadata(raw map[string]json.RawMessage) map[string]string {
	if len(raw) == 0 {
		return nil
	}
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		if s, ok := metadataValue(v); ok {
			out[k] = s
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// parseTimestamp accepts RFC 3339 text or Unix time as a number (seconds,
// or milliseconds/nanoseconds when the number is that large).
func parseTimestamp(raw json.RawMessage) (time.Time, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" || string(raw) == `""` {
		return time.Time{}, nil
	}
	if raw[0] == '"' {
		s, err := decodeString(raw)
		if err != nil {
			return time.Time{}, err
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			if n, nerr := strconv.ParseInt(s, 10, 64); nerr == nil {
				return unixAny(n), nil
			}
			// Without a zone (LangSmith, Python's isoformat of a naive
			// UTC time): read as UTC.
			for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00"} {
				if t, err := time.Parse(layout, s); err == nil {
					return t.UTC(), nil
				}
			}
			return time.Time{}, fmt.Errorf("timestamp %q is not RFC 3339", s)
		}
		return t.UTC(), nil
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("timestamp must be RFC 3339 text or a Unix time, got %s", jsonKind(raw))
	}
	return unixAny(int64(f)), nil
}

// unixAny reads n as seconds, milliseconds or nanoseconds since the epoch,
// whichever gives a date after 1973.
func unixAny(n int64) time.Time {
	switch {
	case n > 1e17:
		return time.Unix(0, n).UTC()
	case n > 1e11:
		return time.UnixMilli(n).UTC()
	}
	return time.Unix(n, 0).UTC()
}

// jsonKind names the type of a JSON value for error messages.
func jsonKind(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// describeJSONError rewords encoding/json's errors into "field: what".
func describeJSONError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "record"
		}
		return fmt.Errorf("%s: must be %s, got %s", field, goTypeKind(te.Type.Kind().String()), te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		if strings.Contains(se.Error(), "unexpected end") {
			return errors.New("invalid JSON: unexpected end of input (truncated line?)")
		}
		return fmt.Errorf("invalid JSON: %v", se)
	}
	if err.Error() == "unexpected end of JSON input" {
		return errors.New("invalid JSON: unexpected end of input (truncated line?)")
	}
	return err
}

func goTypeKind(kind string) string {
	switch kind {
	case "slice", "array":
		return "an array"
	case "struct", "map":
		return "an object"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	}
	return "a " + kind
}
