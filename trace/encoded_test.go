package trace

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// encodedCases are traces whose encoding has edge cases: no tools (nil and
// empty), no timestamp or metadata, an assistant first message, characters
// encoding/json escapes, unparseable arguments, tools out of name order.
func encodedCases() []Trace {
	ts := time.Date(2026, 5, 1, 12, 0, 0, 123456789, time.UTC)
	tools := []Tool{
		{Name: "zeta", Description: "last <b>&</b>", Parameters: json.RawMessage(`{"type":"object"}`)},
		{Name: "alpha"},
		{Name: "mid", Description: "line\u2028sep \x01"},
		{Name: "alpha", Description: "same name, other tool"},
	}
	msgs := []Message{
		{Role: RoleSystem, Content: "be <nice> & \"brief\""},
		{Role: RoleUser, Content: "where is ORD-1?\n\t\xff"},
		{Role: RoleAssistant, ToolCalls: []Call{NewCall("c1", "zeta", `{"b":1,"a":[1.50,"x"]}`), NewCall("c2", "mid", `{not json`)}},
		{Role: RoleTool, ToolCallID: "c1", Name: "zeta", Content: "{}"},
		{Role: RoleAssistant, Content: "done"},
	}
	return []Trace{
		{ID: "full", Timestamp: ts, Metadata: map[string]string{"b": "2", "a": "<1>"}, Tools: tools, Messages: msgs},
		{ID: "nil tools", Messages: msgs},
		{ID: "empty tools", Tools: []Tool{}, Messages: msgs},
		{ID: "assistant first", Tools: tools[:1], Messages: []Message{{Role: RoleAssistant, Content: "hi"}, {Role: RoleUser, Content: "x"}, {Role: RoleAssistant}}},
		{ID: "no assistant", Metadata: map[string]string{}, Messages: msgs[:2]},
		{ID: "no messages"},
	}
}

// itemsByOldFormula is Items as it was first written: InputHash computed
// from scratch for every item.
func itemsByOldFormula(t Trace) []Item { return itemsOneByOne(t) }

func TestEncodedMatchesTheDefinitions(t *testing.T) {
	cases := encodedCases()
	cases = append(cases, readAllTraces(t, benchTraces(200, 7))...)
	// Again, with their tool lists among the Encoder's recent ones.
	cases = append(cases, encodedCases()...)
	enc := NewEncoder()
	for _, tr := range cases {
		t.Run(tr.ID, func(t *testing.T) {
			got, err := enc.Encode(tr)
			if err != nil {
				t.Fatal(err)
			}
			if want, err := ContentHash(tr); err != nil || got.ContentHash != want {
				t.Errorf("ContentHash %s, want %s (%v)", got.ContentHash, want, err)
			}
			wantMsgs, _ := MarshalCanonical(tr.Messages)
			if !bytes.Equal(got.Messages, wantMsgs) {
				t.Errorf("Messages\n%s\nwant\n%s", got.Messages, wantMsgs)
			}
			if len(got.ToolHashes) != len(tr.Tools) {
				t.Fatalf("%d tool hashes for %d tools", len(got.ToolHashes), len(tr.Tools))
			}
			for i, tool := range tr.Tools {
				if want, err := ToolHash(tool); err != nil || got.ToolHashes[i] != want {
					t.Errorf("tool %d: hash %s, want %s (%v)", i, got.ToolHashes[i], want, err)
				}
			}
			want := itemsByOldFormula(tr)
			for name, items := range map[string][]Item{"Encode": got.Items, "Items": Items(tr)} {
				if len(items) != len(want) {
					t.Fatalf("%s: %d items, want %d", name, len(items), len(want))
				}
				for i := range want {
					a, _ := json.Marshal(items[i])
					b, _ := json.Marshal(want[i])
					if !bytes.Equal(a, b) {
						t.Errorf("%s item %d:\n%s\nwant\n%s", name, i, a, b)
					}
				}
			}
		})
	}
}

// BenchmarkItems measures item extraction (ids, contexts, input hashes) on
// a trace with many messages, where the hashing used to be quadratic.
func BenchmarkItems(b *testing.B) {
	tr := Trace{ID: "long", Tools: encodedCases()[0].Tools}
	for i := 0; i < 100; i++ {
		tr.Messages = append(tr.Messages,
			Message{Role: RoleUser, Content: "a question of moderate length about an order and its delivery"},
			Message{Role: RoleAssistant, ToolCalls: []Call{NewCall("c", "zeta", `{"order_id":"ORD-1"}`)}},
			Message{Role: RoleTool, ToolCallID: "c", Content: `{"status":"shipped"}`})
	}
	for _, bc := range []struct {
		name  string
		items func(Trace) []Item
	}{{"linear", Items}, {"one_by_one", itemsByOldFormula}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if len(bc.items(tr)) != 100 {
					b.Fatal("items")
				}
			}
		})
	}
}

// A trace or tool that cannot be encoded has no hash: the error is
// returned, never the hash of nothing (two such traces would collide).
func TestHashesReturnEncodingErrors(t *testing.T) {
	bad := Trace{Messages: []Message{{Role: RoleAssistant, ToolCalls: []Call{{Name: "f", Arguments: json.RawMessage(`{"a":`)}}}}}
	if h, err := ContentHash(bad); err == nil || h != "" {
		t.Errorf("ContentHash = %q, %v; want an error", h, err)
	}
	if id, err := DeriveID(bad); err == nil || id != "" {
		t.Errorf("DeriveID = %q, %v; want an error", id, err)
	}
	if h, err := ToolHash(Tool{Name: "f", Parameters: json.RawMessage(`{"type":`)}); err == nil || h != "" {
		t.Errorf("ToolHash = %q, %v; want an error", h, err)
	}
	good, err := ContentHash(Trace{Messages: []Message{{Role: RoleUser, Content: "hi"}}})
	if err != nil || len(good) != 64 {
		t.Errorf("ContentHash of a good trace = %q, %v", good, err)
	}
}

// The Encoder's hand-written messages and calls are MarshalCanonical's
// bytes, or its error, for any content.
func FuzzEncoderMessages(f *testing.F) {
	f.Add("assistant", "be <nice> & \"brief\"\n\u2028\xff", "n", "", "c1", "f", []byte(`{"a":[1.50,"x"]}`), false)
	f.Add("tool", "", "", "id", "", "", []byte(` {"a" : 1} `), true)
	f.Add("user", "x", "", "", "", "g", []byte(``), false)
	f.Add("user", "x", "", "", "", "g", []byte(`{"a":`), false)
	f.Fuzz(func(t *testing.T, role, content, name, callID, id, fn string, args []byte, unparseable bool) {
		calls := []Call{{ID: id, Name: fn, Arguments: args, Unparseable: unparseable}}
		if len(args) == 0 {
			calls = append(calls, Call{Name: fn})
		}
		msgs := []Message{{Role: role, Content: content, Name: name, ToolCallID: callID, ToolCalls: calls}, {Role: role}}
		want, wantErr := MarshalCanonical(msgs)
		got, ends, err := NewEncoder().messages(msgs)
		if (err == nil) != (wantErr == nil) || err == nil && !bytes.Equal(got, want) {
			t.Fatalf("messages = %s, %v; MarshalCanonical gives %s, %v", got, err, want, wantErr)
		}
		if err == nil {
			first, _ := MarshalCanonical(msgs[0])
			if ends[0] != 1+len(first) || ends[1] != len(got)-1 {
				t.Fatalf("ends %v of %s", ends, got)
			}
		}
		want, wantErr = MarshalCanonical(calls)
		got, err = NewEncoder().Calls(calls)
		if (err == nil) != (wantErr == nil) || err == nil && !bytes.Equal(got, want) {
			t.Fatalf("Calls = %s, %v; MarshalCanonical gives %s, %v", got, err, want, wantErr)
		}
	})
}

// An Encoder reuses the encoding of the last trace's tools only when they
// are the same: a caller changing its tool slice in place between traces
// gets the hashes of the new tools.
func TestEncoderToolsChangedInPlace(t *testing.T) {
	tools := []Tool{{Name: "f", Parameters: json.RawMessage(`{"type":"object"}`)}}
	tr := Trace{ID: "a", Tools: tools, Messages: []Message{{Role: RoleUser, Content: "x"}, {Role: RoleAssistant}}}
	enc := NewEncoder()
	if _, err := enc.Encode(tr); err != nil {
		t.Fatal(err)
	}
	tools[0].Name = "g"
	copy(tools[0].Parameters, `{"type":"bbjeat"}`)
	got, err := enc.Encode(tr)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := ToolHash(tools[0])
	content, _ := ContentHash(tr)
	if got.ToolHashes[0] != want || got.ContentHash != content || got.Items[0].InputHash != InputHash(tr.Messages[:1], tools) {
		t.Errorf("hashes of the changed tools: %+v", got)
	}
}
