package dataset

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/goldtrace/goldtrace/trace"
)

func TestSplitStoredMessages(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want []string // nil: declined
	}{
		{`[]`, []string{}},
		{`[{"role":"user","content":"a"}]`, []string{`{"role":"user","content":"a"}`}},
		{`[{"a":"}],{"},{"b":[{"c":1}]}]`, []string{`{"a":"}],{"}`, `{"b":[{"c":1}]}`}},
		{`[{"a":"x\"},{"}]`, []string{`{"a":"x\"},{"}`}},
		{`[{"a":"\\"},{"b":2}]`, []string{`{"a":"\\"}`, `{"b":2}`}},
		{`null`, nil},
		{`[`, nil},
		{`[{"a":1}`, nil},
		{`[{"a":1},]`, nil},
		{`[,{"a":1}]`, nil},
		{`[{"a":1}{"b":2}]`, nil},
		{`[{"a":1},2]`, nil},
		{`[{"a":1}] `, nil},
		{`[{"a": 1}]`, nil},
		{`[{"a":1}]]`, nil},
		{`[{"a":"x}]`, nil},
		{`[{"a":"\u00e9"}]`, nil},
		{`[{"a":"\ufffd"}]`, nil},
	} {
		ends, ok := splitStoredMessages([]byte(tc.raw))
		var got []string
		for i, end := range ends {
			start := 0
			if i > 0 {
				start = ends[i-1] + 1
			}
			got = append(got, tc.raw[1 : len(tc.raw)-1][start:end])
		}
		if ok != (tc.want != nil) || len(got) != len(tc.want) {
			t.Errorf("%s: %q, %v; want %q", tc.raw, got, ok, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: element %d = %s, want %s", tc.raw, i, got[i], tc.want[i])
			}
		}
	}
}

// FuzzStoredMessagesBuildAsDecoded: whatever the text of a conversation,
// its records built from the messages as a store keeps them (trace.Encoder's
// JSON) are byte for byte the records built from the decoded messages.
func FuzzStoredMessagesBuildAsDecoded(f *testing.F) {
	f.Add("hello", `{"order_id":"ORD-1"}`, "ok")
	f.Add("<b>&</b>", `not json <`, "\u2028")
	f.Add("\xff\xfe", `{"b":1,"a":"\xff"}`, `\u0041`)
	f.Add(`"},{"`, `["]"]`, "\x00")
	f.Fuzz(func(t *testing.T, text, args, result string) {
		tr := trace.Trace{
			ID: "tr_fuzz",
			Messages: []trace.Message{
				{Role: trace.RoleUser, Content: text},
				{Role: trace.RoleAssistant, Content: text, ToolCalls: []trace.Call{trace.NewCall("c1", "lookup", args)}},
				{Role: trace.RoleTool, ToolCallID: "c1", Name: "lookup", Content: result},
				{Role: trace.RoleAssistant, Content: result},
			},
		}
		enc, err := trace.NewEncoder().Encode(tr)
		if err != nil {
			t.Skip(err) // not storable
		}
		answers := []Answer{noCallAnswer(1), noCallAnswer(3)}
		stored := TraceGold{Trace: trace.Trace{ID: tr.ID}, MessagesJSON: enc.Messages, Answers: answers}
		got, err := BuildLines(stored)
		if err != nil {
			t.Fatal(err)
		}
		var msgs []trace.Message
		if err := json.Unmarshal(enc.Messages, &msgs); err != nil {
			t.Fatal(err)
		}
		want, err := BuildLines(TraceGold{Trace: trace.Trace{ID: tr.ID, Messages: msgs}, Answers: answers})
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if !bytes.Equal(got[i].Bytes(), want[i].Bytes()) {
				t.Fatalf("from stored bytes\n%s\nfrom decoded messages\n%s", got[i].Bytes(), want[i].Bytes())
			}
		}
	})
}
