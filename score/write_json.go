package score

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strconv"
	"unicode/utf8"
)

// The JSON report is what encoding/json writes for a Report with two-space
// indentation and HTML left unescaped, byte for byte; the items (100k on a
// large dataset) are streamed by hand instead of being built in memory and
// re-indented.

func (r *Report) writeJSON(out io.Writer) error {
	head := *r
	head.Items = []ItemResult{}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&head); err != nil {
		return err
	}
	b := buf.Bytes()
	const tail = "\"items\": []\n}\n"
	if len(r.Items) == 0 || !bytes.HasSuffix(b, []byte(tail)) {
		_, err := out.Write(b)
		return err
	}
	w := bufio.NewWriterSize(out, 1<<16)
	w.Write(b[:len(b)-len(tail)])
	w.WriteString("\"items\": [")
	var item []byte
	for i := range r.Items {
		if i > 0 {
			w.WriteByte(',')
		}
		item = r.Items[i].appendIndented(item[:0])
		w.Write(item)
	}
	w.WriteString("\n  ]\n}\n")
	return w.Flush()
}

// appendIndented appends the item as an element of the report's "items"
// array: what encoding/json's indenting writes for ItemResult.MarshalJSON.
func (it *ItemResult) appendIndented(b []byte) []byte {
	key := func(name string) {
		b = append(b, "\n      \""...)
		b = append(b, name...)
		b = append(b, "\": "...)
	}
	b = append(b, "\n    {"...)
	key("id")
	b = appendJSONString(b, it.ID)
	b = append(b, ',')
	key("correct")
	b = strconv.AppendBool(b, it.Correct)
	if it.Kind != "" {
		b = append(b, ',')
		key("kind")
		b = appendJSONString(b, string(it.Kind))
	}
	if it.Message != "" {
		b = append(b, ',')
		key("message")
		b = appendJSONString(b, it.Message)
	}
	b = append(b, ',')
	key("expected_tool")
	b = appendJSONString(b, it.ExpectedTool)
	b = append(b, ',')
	key("predicted_tool")
	b = appendJSONString(b, it.PredictedTool)
	b = append(b, ',')
	key("list")
	b = strconv.AppendInt(b, int64(it.List), 10)
	if it.Missing {
		b = append(b, ',')
		key("missing_prediction")
		b = append(b, "true"...)
	}
	if j := it.ItemJudge; j != nil {
		b = append(b, ',')
		key("judge_score")
		if j.JudgeScore == nil {
			b = append(b, "null"...)
		} else {
			b = appendJSONFloat(b, *j.JudgeScore)
		}
		b = append(b, ',')
		key("judge_reason")
		if j.JudgeReason == nil {
			b = append(b, "null"...)
		} else {
			b = appendJSONString(b, *j.JudgeReason)
		}
		if j.JudgeError != "" {
			b = append(b, ',')
			key("judge_error")
			b = appendJSONString(b, j.JudgeError)
		}
	}
	lo, hi := seedRange(int(it.seed))
	for i := lo; i < hi; i++ {
		b = append(b, ',')
		key(seedNames[i])
		if v := it.Seed[i]; v != v {
			b = append(b, "null"...)
		} else {
			b = appendJSONFloat(b, v)
		}
	}
	return append(b, "\n    }"...)
}

// appendJSONFloat formats a float as encoding/json does.
func appendJSONFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s as encoding/json does with HTML escaping off:
// control characters, invalid UTF-8 (as \ufffd) and U+2028/U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
