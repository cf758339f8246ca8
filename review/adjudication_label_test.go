package review

import (
	"strings"
	"testing"
)

func TestParseAdjudicationLabel(t *testing.T) {
	tests := []struct {
		name, in, err string
		calls         int
		args          string
	}{
		{"call without args gets {}", `{"decision":"call","calls":[{"tool":"t"}],"reviewer":"x"}`, "", 1, "{}"},
		{"no_call drops calls", `{"item":"it_1","decision":"no_call","calls":[{"tool":"t"}]}`, "", 0, ""},
		{"other item", `{"item":"it_2","decision":"no_call"}`, "label is for item it_2, not it_1", 0, ""},
		{"two values", `{"decision":"no_call"} {}`, "more than one JSON value", 0, ""},
		{"unknown field", `{"decision":"no_call","extra":1}`, "not a Label JSON object", 0, ""},
		{"bad decision", `{"decision":"maybe"}`, `decision "maybe": must be call or no_call`, 0, ""},
		{"call without calls", `{"decision":"call"}`, "decision call needs at least one call", 0, ""},
		{"call without tool", `{"decision":"call","calls":[{"args":{}}]}`, "call 1 has no tool", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := ParseAdjudicationLabel([]byte(tt.in), "it_1")
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || l.Item != "it_1" || l.Reviewer != "" || len(l.Calls) != tt.calls {
				t.Fatalf("%+v %v", l, err)
			}
			if tt.calls > 0 && string(l.Calls[0].Args) != tt.args {
				t.Errorf("args %s, want %s", l.Calls[0].Args, tt.args)
			}
		})
	}
}

// FuzzParseAdjudicationLabel: any input is a label for the item with a
// decision and tools on every call, or an error; never a panic.
func FuzzParseAdjudicationLabel(f *testing.F) {
	f.Add(`{"decision":"call","calls":[{"tool":"t","args":null}]}`)
	f.Add(`{"item":"it_1","decision":"no_call","rationale":"r"}`)
	f.Fuzz(func(t *testing.T, in string) {
		l, err := ParseAdjudicationLabel([]byte(in), "it_1")
		if err != nil {
			return
		}
		if l.Item != "it_1" || l.Reviewer != "" || (l.Decision == DecisionCall) == (len(l.Calls) == 0) {
			t.Fatalf("accepted %+v", l)
		}
		for _, c := range l.Calls {
			if c.Tool == "" || len(c.Args) == 0 {
				t.Fatalf("accepted a call %+v", c)
			}
		}
	})
}
