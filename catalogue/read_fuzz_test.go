package catalogue

import (
	"strings"
	"testing"
)

// FuzzRead: any input is a catalogue or one error naming the file; never a
// panic, and a catalogue has named, distinct tools in name order.
func FuzzRead(f *testing.F) {
	for _, seed := range []string{
		`[{"type":"function","function":{"name":"get","parameters":{"type":"object"}}}]`,
		`{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}}]}`,
		`{"jsonrpc":"2.0","result":{"tools":[]}}`,
		"{\"name\":\"a\"}\n{\"name\":\"b\"}\n",
		`[{"name":"a","parameters":[1]}]`, `{"tools":null}`, `[`, ``,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		tools, err := Read(strings.NewReader(in), "cat.json")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "cat.json") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q", err)
			}
			return
		}
		for i, tl := range tools {
			if tl.Name == "" || i > 0 && tools[i-1].Name >= tl.Name {
				t.Fatalf("tools %+v", tools)
			}
		}
	})
}
