package score

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strconv"

	"github.com/goldtrace/goldtrace/internal/jsonlex"
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
	b = jsonlex.AppendString(b, it.ID, false)
	b = append(b, ',')
	key("correct")
	b = strconv.AppendBool(b, it.Correct)
	if it.Kind != "" {
		b = append(b, ',')
		key("kind")
		b = jsonlex.AppendString(b, string(it.Kind), false)
	}
	if it.Message != "" {
		b = append(b, ',')
		key("message")
		b = jsonlex.AppendString(b, it.Message, false)
	}
	b = append(b, ',')
	key("expected_tool")
	b = jsonlex.AppendString(b, it.ExpectedTool, false)
	b = append(b, ',')
	key("predicted_tool")
	b = jsonlex.AppendString(b, it.PredictedTool, false)
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
			b = jsonlex.AppendString(b, *j.JudgeReason, false)
		}
		if j.JudgeError != "" {
			b = append(b, ',')
			key("judge_error")
			b = jsonlex.AppendString(b, j.JudgeError, false)
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
