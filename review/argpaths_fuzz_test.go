package review

import (
	"encoding/json"
	"testing"
)

// FuzzArgLeaves: any argument text gives leaves without a panic; an object
// gives leaves whose pointers start with "/" and whose values are JSON.
func FuzzArgLeaves(f *testing.F) {
	for _, seed := range []string{`{"a":{"b":[1,{"c\u0064":"x"}]},"e":[]}`, `{}`, `[1]`, `"s"`, `not json`, `{"a":`, `{"a\/b~":1}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		leaves := argLeaves(json.RawMessage(in))
		if raw, whole := leaves[""]; whole {
			if len(leaves) != 1 || len(raw) == 0 {
				t.Fatalf("whole-value leaf beside others: %v", leaves)
			}
			return
		}
		for p, v := range leaves {
			if p == "" || p[0] != '/' || !json.Valid(v) {
				t.Fatalf("leaf %q = %q", p, v)
			}
		}
	})
}
