package trace

import (
	"bytes"
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

// Canonical's fast path (input already canonical, returned as it is) gives
// exactly the bytes of decoding and re-encoding, for every input.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{`{"a":[true,null,"x"],"b":1}`, ` {"n":1.0} `, `"<&>"`, `"\u003c"`, `"\u2028"`, "\"\u2028\"",
		`{"b":1,"a":2}`, `{"a":1,"a":2}`, `{"\u0061":1,"b":2}`, `"\ud800"`, "\"\xff\"", `[1,-0,1e5,1E+5]`, `{"é":1,"z":2}`,
		`"\/"`, `"\n\t\u0001\b\f"`, `{}`, `[]`, `[ ]`, `{"a":{}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		v, err := decodeNumbers(raw)
		var want []byte
		if err == nil {
			want, err = MarshalCanonical(v)
		}
		got, gotErr := Canonical(raw)
		if (err == nil) != (gotErr == nil) || !bytes.Equal(got, want) {
			t.Fatalf("Canonical(%q) = %s, %v; decoding and encoding give %s, %v", raw, got, gotErr, want, err)
		}
		if gotErr != nil && gotErr.Error() != err.Error() {
			t.Fatalf("Canonical(%q): error %v, want %v", raw, gotErr, err)
		}
	})
}

// A tool result names its tool by its own name or, failing that, by the
// call it answers.
func TestResultName(t *testing.T) {
	msgs := []Message{
		{Role: RoleAssistant, ToolCalls: []Call{NewCall("c1", "get_user_details", `{}`), NewCall("c2", "search_direct_flight", `{}`)}},
		{Role: RoleTool, ToolCallID: "c2", Content: "[]"},
		{Role: RoleTool, ToolCallID: "c1", Name: "own_name", Content: "{}"},
		{Role: RoleTool, ToolCallID: "c9", Content: "?"},
		{Role: RoleTool, Content: "?"},
	}
	for i, want := range []string{"", "search_direct_flight", "own_name", "", ""} {
		if got := ResultName(msgs, i); got != want {
			t.Errorf("message %d: %q, want %q", i, got, want)
		}
	}
}
