package jsonlex

import (
	"encoding/json"
	"strings"
	"testing"
)

// The lexer accepts exactly what encoding/json accepts as one value.
func TestSkipAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range []string{
		`{"a":[1,-0.5e+3,true,false,null,"x\u00e9\n"]}`, ` [ ] `, `"\ud800"`, `-0`,
		`01`, `1.`, `-`, `1e`, `"\x"`, `"a` + "\x01" + `"`, `{"a" 1}`, `[1,]`, `{"a":1,}`, `tru`, ``, `{} {}`, `"\u12"`,
	} {
		l := Lexer{Data: []byte(s)}
		_, err := l.Skip()
		if err == nil {
			err = l.End()
		}
		if got, want := err == nil, json.Valid([]byte(s)); got != want {
			t.Errorf("%q: lexer ok %v (%v), encoding/json valid %v", s, got, err, want)
		}
	}
}

func FuzzSkip(f *testing.F) {
	for _, s := range []string{`{"a":[1,2]}`, `"\u00e9"`, `[1e5,-0.1]`, `nul`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l := Lexer{Data: data}
		_, err := l.Skip()
		if err == nil {
			err = l.End()
		}
		if (err == nil) != json.Valid(data) {
			t.Fatalf("%q: lexer %v, encoding/json valid %v", data, err, json.Valid(data))
		}
	})
}

// BenchmarkSkip reads a trace-shaped record.
func BenchmarkSkip(b *testing.B) {
	rec := []byte(`{"id":"tr_1","metadata":{"channel":"web","model":"gpt-4.1"},"tools":[` +
		strings.Repeat(`{"name":"get_order","description":"Status of one order.","parameters":{"type":"object","properties":{"order_id":{"type":"string","pattern":"^ORD-[0-9]{5}$"}},"required":["order_id"]}},`, 8) +
		`{"name":"x"}],"messages":[` + strings.Repeat(`{"role":"user","content":"where is ORD-12345? it is late"},{"role":"assistant","content":"","tool_calls":[{"id":"c1","name":"get_order","arguments":{"order_id":"ORD-12345"}}]},`, 4) +
		`{"role":"assistant","content":"done"}]}`)
	b.SetBytes(int64(len(rec)))
	b.ReportAllocs()
	for b.Loop() {
		l := Lexer{Data: rec}
		if _, err := l.Skip(); err != nil {
			b.Fatal(err)
		}
	}
}
