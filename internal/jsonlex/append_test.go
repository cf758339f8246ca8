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

// Unquote decodes every valid string as encoding/json does (escapes,
// surrogate pairs, lone surrogates and invalid UTF-8 replaced by U+FFFD).
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`""`, `"plain"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\u2028"`, `"\ud83d\ude00"`,
		`"\ud800"`, `"\ud800\u0041"`, `"\udc00\ud800"`, "\"\xff\xfe\"", "\"é\xc3\"", `"\x"`, `"\u12g4"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, lit []byte) {
		var want string
		if json.Unmarshal(lit, &want) != nil {
			return
		}
		lit = bytes.Trim(lit, " \t\r\n")
		end, _, _ := StringEnd(lit, 0)
		if end != len(lit) {
			t.Fatalf("%q: encoding/json reads a string, StringEnd ends at %d", lit, end)
		}
		got, ok := Unquote(lit[1 : len(lit)-1])
		if !ok || got != want {
			t.Fatalf("Unquote(%q) = %q, %v; encoding/json gives %q", lit, got, ok, want)
		}
	})
}
