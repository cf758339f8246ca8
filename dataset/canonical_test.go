package dataset

import (
	"bytes"
	"testing"

	"github.com/goldtrace/goldtrace/trace"
)

func TestIsCanonical(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{`{"a":1,"b":[true,false,null,"x"],"c":{"d":-0.5e+3}}`, true},
		{`{}`, true}, {`[]`, true}, {`"s"`, true}, {`0`, true},
		{`{"b":1,"a":2}`, false},  // unsorted
		{`{"a":1,"a":2}`, false},  // repeated
		{`{"a": 1}`, false},       // white space
		{`{"a":"\n"}`, true},      // escaped as encoding/json escapes it
		{`{"a":"\u000a"}`, false}, // escaped otherwise
		{`{"a":"é"}`, true},       // UTF-8 as it is
		{`{"a":"<b>"}`, true},     // no HTML escaping
		{`{"a":"\u003c"}`, false},
		{`01`, false}, {`1.`, false}, {`-`, false}, {`1e`, false},
		{`{"a":1}x`, false}, {`[1,]`, false}, {`{"a"}`, false}, {`tru`, false}, {``, false},
	}
	for _, tc := range tests {
		if got := trace.IsCanonical([]byte(tc.in)); got != tc.want {
			t.Errorf("IsCanonical(%s) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// FuzzCanonicalFastPath: whatever the fast path accepts, trace.Canonical
// returns unchanged, so both paths always agree.
func FuzzCanonicalFastPath(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[true,null]}`, `{"b":1,"a":2}`, `[1.5e-3,"x"]`, `{"a":{"b":{}}}`, `"<&>"`, `-0`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		fast, fastErr := canonical(raw)
		slow, slowErr := trace.Canonical(raw)
		if (fastErr == nil) != (slowErr == nil) || fastErr == nil && !bytes.Equal(fast, slow) {
			t.Fatalf("%q: fast %q %v, slow %q %v", raw, fast, fastErr, slow, slowErr)
		}
	})
}
