package trace

import (
	"encoding/json"
	"testing"
)

func TestCanonical(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"b":1,"a":[true,null,"x"]}`, `{"a":[true,null,"x"],"b":1}`},
		{` {"n":1.0} `, `{"n":1.0}`},
		{`"<&>"`, `"<&>"`},
		{`{}]`, ""},
		{`{} {}`, ""},
		{`{"a":`, ""},
		{``, ""},
	} {
		got, err := Canonical(json.RawMessage(tt.in))
		if tt.want == "" {
			if err == nil {
				t.Errorf("Canonical(%q) = %s, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("Canonical(%q) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
	// Arguments with trailing data are kept verbatim and flagged, not cut.
	if c := NewCall("c1", "f", `{"a":1}]`); !c.Unparseable || c.RawArguments() != `{"a":1}]` {
		t.Errorf("NewCall with trailing data: %+v", c)
	}
}
