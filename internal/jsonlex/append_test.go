package jsonlex

import (
	"bytes"
	"encoding/json"
	"testing"
)

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "<&>", "\x00\x1f\"\\", "\u2028é\xff", "日本語"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s, true); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q) = %s, json.Marshal gives %s", s, got, want)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		if got := AppendString(nil, s, false); !bytes.Equal(got, bytes.TrimRight(buf.Bytes(), "\n")) {
			t.Fatalf("AppendString(%q, no HTML) = %s, want %s", s, got, buf.Bytes())
		}
	})
}
