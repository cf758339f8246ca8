package toolschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func decode(t testing.TB, text string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%.80s: %v", text, err)
	}
	return v
}

func compile(t testing.TB, schema string) (*Schema, error) {
	t.Helper()
	return Compile(decode(t, schema))
}

// keywords lists the failing keywords at their paths: "a.b:type".
func keywords(errs []Error) string {
	var out []string
	for _, e := range errs {
		out = append(out, strings.Join(e.Path, ".")+":"+e.Keyword)
	}
	return strings.Join(out, " ")
}

func TestValidate(t *testing.T) {
	tests := []struct{ schema, value, want string }{
		{`{"type":"integer"}`, `1.0`, ""},
		{`{"type":"integer"}`, `1.5`, ":type"},
		{`{"type":["string","null"]}`, `null`, ""},
		{`{"properties":{"a":{"type":"string"}},"required":["a","b"]}`, `{"a":1}`, ":required a:type"},
		{`{"additionalProperties":false,"properties":{"a":{}}}`, `{"a":1,"b":2}`, ":additionalProperties"},
		{`{"enum":[1,"x",null]}`, `1.0`, ""},
		{`{"const":{"a":[1,2]}}`, `{"a":[1,2.0]}`, ""},
		{`{"items":{"minimum":0},"uniqueItems":true,"maxItems":2}`, `[1,-1,1]`, ":maxItems :uniqueItems 1:minimum"},
		{`{"prefixItems":[{"type":"string"}],"items":false}`, `["a",1]`, "1:false"},
		{`{"pattern":"^[a-z]+$","minLength":2}`, `"A"`, ":minLength :pattern"},
		{`{"multipleOf":0.1}`, `0.3`, ""},
		{`{"exclusiveMaximum":10}`, `10`, ":exclusiveMaximum"},
		{`{"anyOf":[{"type":"string"},{"type":"integer"}]}`, `true`, ":type :type"},
		{`{"oneOf":[{"minimum":0},{"maximum":10}]}`, `5`, ":oneOf"},
		{`{"not":{"type":"null"}}`, `null`, ":not"},
		{`{"$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`, `{"next":{"next":1}}`, "next.next:type"},
		{`{"definitions":{"a~b":{"type":"string"}},"properties":{"x":{"$ref":"#/definitions/a~0b"}}}`, `{"x":1}`, "x:type"},
		{`{"if":{"required":["a"]},"then":{"required":["b"]},"else":{"required":["c"]}}`, `{"a":1}`, ":required"},
		{`{"dependentRequired":{"a":["b"]}}`, `{"a":1}`, ":dependentRequired"},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"d":{"format":"date"}}}`, `{"d":"2024-02-30"}`, "d:format"},
		{`{"properties":{"d":{"format":"date"}}}`, `{"d":"2024-02-30"}`, ""}, // 2020-12: format only annotates
		{`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}],"additionalItems":false}`, `["a","b"]`, ":additionalItems"},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","$ref":"#/definitions/s","type":"integer","definitions":{"s":{"type":"string"}}}`, `"x"`, ""},
	}
	for _, tt := range tests {
		s, err := compile(t, tt.schema)
		if err != nil {
			t.Errorf("%s: %v", tt.schema, err)
			continue
		}
		errs, err := s.Validate(decode(t, tt.value))
		if err != nil {
			t.Errorf("%s: %v", tt.schema, err)
		}
		if got := keywords(errs); got != tt.want {
			t.Errorf("%s on %s: got %q, want %q", tt.schema, tt.value, got, tt.want)
		}
	}
}

// A schema a general validator would refuse, or that goldtrace does not
// support, does not compile; the caller then enforces nothing.
func TestCompileRefuses(t *testing.T) {
	for _, schema := range []string{
		`{"type":"dict"}`, `{"type":[]}`, `{"required":"a"}`, `{"required":["a","a"]}`,
		`{"minLength":-1}`, `{"minLength":1.5}`, `{"pattern":"(?=a)"}`, `{"pattern":"\\u00e9"}`,
		`{"multipleOf":0}`, `{"anyOf":[]}`, `{"properties":{"a":1}}`, `{"description":5}`,
		`{"$ref":"http://example.com/s.json"}`, `{"$ref":"#/$defs/missing"}`,
		`{"$schema":"http://json-schema.org/draft-04/schema#"}`, `{"properties":{"a":{"$anchor":"x"}}}`,
		`{"items":[{"type":"string"}]}`, // a tuple is prefixItems in 2020-12
		`{"$schema":"http://json-schema.org/draft-07/schema#","enum":[]}`,
	} {
		if _, err := compile(t, schema); err == nil {
			t.Errorf("%s compiled", schema)
		}
	}
}

// Hostile schemas and values take bounded time and memory: $ref cycles
// that never descend into the value are refused, nesting and size are
// bounded, and a schema that would branch without end gives up.
func TestBounds(t *testing.T) {
	for name, schema := range map[string]string{
		"self reference":     `{"$ref":"#"}`,
		"reference cycle":    `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"allOf":[{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}`,
		"cycle through not":  `{"$defs":{"a":{"not":{"$ref":"#/$defs/a"}}},"properties":{"x":{"$ref":"#/$defs/a"}}}`,
		"nested too deep":    strings.Repeat(`{"properties":{"a":`, MaxDepth+2) + `{}` + strings.Repeat(`}}`, MaxDepth+2),
		"too many schemas":   `{"properties":{` + strings.TrimSuffix(strings.Repeat(`"p":{},`, 1), ",") + manyProps(MaxNodes+1) + `}}`,
		"patterns too large": `{"pattern":"` + strings.Repeat("a", MaxPatternBytes+1) + `"}`,
	} {
		if _, err := compile(t, schema); err == nil {
			t.Errorf("%s: compiled", name)
		}
	}

	// Every branch fails one level down, so without a bound the checks
	// would double at every level of the value.
	s, err := compile(t, `{"$defs":{"n":{"anyOf":[
		{"properties":{"a":{"$ref":"#/$defs/n"}},"required":["x"]},
		{"properties":{"a":{"$ref":"#/$defs/n"}},"required":["y"]}]}},"$ref":"#/$defs/n"}`)
	if err != nil {
		t.Fatal(err)
	}
	value := strings.Repeat(`{"a":`, 60) + `{}` + strings.Repeat(`}`, 60)
	if _, err := s.Validate(decode(t, value)); !errors.Is(err, ErrTooComplex) {
		t.Errorf("exponential schema: %v", err)
	}

	// A recursive schema that descends with the value is fine, however
	// deep the value.
	s, err = compile(t, `{"$defs":{"n":{"type":"object","properties":{"a":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`)
	if err != nil {
		t.Fatal(err)
	}
	deep := strings.Repeat(`{"a":`, 5000) + `1` + strings.Repeat(`}`, 5000)
	if errs, err := s.Validate(decode(t, deep)); err != nil || len(errs) != 1 || len(errs[0].Path) != 5000 {
		t.Errorf("deep value: %d errors, %v", len(errs), err)
	}

	// Numbers beyond float64 stay exact enough and cheap.
	s, err = compile(t, `{"maximum":1e999999999,"minimum":-1e999999999,"multipleOf":1e-999999999}`)
	if err != nil {
		t.Fatal(err)
	}
	if errs, _ := s.Validate(decode(t, `1e999999998`)); len(errs) != 0 {
		t.Errorf("huge number: %v", keywords(errs))
	}

	// A long enum and a long list with uniqueItems are linear.
	var enum bytes.Buffer
	enum.WriteString(`{"enum":[`)
	for i := range 20000 {
		fmt.Fprintf(&enum, `"v%d",`, i)
	}
	enum.WriteString(`"last"],"items":{},"uniqueItems":true}`)
	s, err = compile(t, enum.String())
	if err != nil {
		t.Fatal(err)
	}
	if errs, _ := s.Validate("nope"); keywords(errs) != ":enum" {
		t.Errorf("long enum: %v", keywords(errs))
	}
}

func manyProps(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `,"p%d":{}`, i)
	}
	return b.String()
}
