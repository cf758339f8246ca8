package gold

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestParseJSON(t *testing.T) {
	valid := []string{`{}`, `[]`, `{"a":[1,-2.5e+3,"x\"y",true,false,null,{}]}`, ` 0 `, `"\u00e9"`, `-0.0E-0`}
	for _, s := range valid {
		var f Forest
		if _, err := f.Parse([]byte(s)); err != nil {
			t.Errorf("parse(%s): %v", s, err)
		}
	}
	invalid := []string{``, `{`, `{"a"}`, `{"a":1,}`, `[1,]`, `01`, `1.`, `-`, `1e`, `tru`, `"abc`, `{} {}`, "\"a\tb\"", `{a:1}`, `nul`}
	for _, s := range invalid {
		var f Forest
		if _, err := f.Parse([]byte(s)); err == nil {
			t.Errorf("parse(%q) accepted invalid JSON", s)
		}
	}
}

func TestDuplicateKeysLastWins(t *testing.T) {
	if !ArgsEqual(json.RawMessage(`{"a":1,"a":2}`), json.RawMessage(`{"a":2}`)) {
		t.Error(`{"a":1,"a":2} should read as {"a":2}`)
	}
	if !ArgsEqual(json.RawMessage(`{"a":1,"b":0,"a":2}`), json.RawMessage(`{"a":1,"b":0,"a":2}`)) {
		t.Error("a value with a repeated key is not equal to itself")
	}
}

func TestNumbersEqual(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"1", "1.0", true}, {"1", "1e0", true}, {"100", "1e2", true}, {"0.5", "5e-1", true},
		{"-0", "0", true}, {"0", "0.0", true}, {"1", "2", false},
		{"12345678901234567890", "12345678901234567890.0", true},
		{"12345678901234567890", "12345678901234567891", false},
		{"1e400", "1e400", true}, {"1e400", "10e399", true}, {"1e9999", "1e9998", false},
	}
	for _, tt := range tests {
		if got := NumbersEqual([]byte(tt.a), []byte(tt.b)); got != tt.want {
			t.Errorf("NumbersEqual(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// FuzzParseJSON checks the value tree's parser against encoding/json: it
// accepts exactly the valid documents, and a value equals itself.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x"]}`, `[true,null]`, `"\ud83d\ude00"`, `{"a":{"b":{"c":1e5}}}`, `1`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v Forest
		idx, err := v.Parse(data)
		if valid := json.Valid(data); valid != (err == nil) {
			t.Fatalf("parse(%q): err=%v, json.Valid=%v", data, err, valid)
		}
		if err != nil {
			return
		}
		if !bytes.Equal(bytes.TrimSpace(v.Nodes[idx].Raw), bytes.TrimSpace(data)) {
			t.Fatalf("raw %q != input %q", v.Nodes[idx].Raw, data)
		}
		if !v.Equal(idx, idx, false) {
			t.Fatalf("%q is not equal to itself", data)
		}
	})
}
