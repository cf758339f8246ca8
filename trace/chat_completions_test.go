package trace

import (
	"encoding/json"
	"testing"
)

// TestChatMessages pins the one chat-completions form of a conversation that
// the exports and the model requests share: a participant name stays on
// system, user and assistant messages and is never written on a tool result;
// unparseable arguments go out verbatim.
func TestChatMessages(t *testing.T) {
	msgs := []Message{
		{Role: RoleSystem, Content: "You are a support agent.", Name: "policy"},
		{Role: RoleUser, Content: "where is ORD-1?", Name: "alice_9"},
		{Role: RoleAssistant, Name: "router", ToolCalls: []Call{NewCall("c1", "get_order_status", `{"order_id":"ORD-1"}`), NewCall("c2", "search_faq", `{"query":`)}},
		{Role: RoleTool, Name: "get_order_status", ToolCallID: "c1", Content: "shipped"},
	}
	b, err := json.Marshal(ChatMessages(msgs))
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"role":"system","content":"You are a support agent.","name":"policy"},` +
		`{"role":"user","content":"where is ORD-1?","name":"alice_9"},` +
		`{"role":"assistant","content":"","name":"router","tool_calls":[{"id":"c1","type":"function","function":{"name":"get_order_status","arguments":"{\"order_id\":\"ORD-1\"}"}},` +
		`{"id":"c2","type":"function","function":{"name":"search_faq","arguments":"{\"query\":"}}]},` +
		`{"role":"tool","content":"shipped","tool_call_id":"c1"}]`
	if string(b) != want {
		t.Errorf("ChatMessages:\n got %s\nwant %s", b, want)
	}

	b, err = json.Marshal(ChatTools([]Tool{{Name: "ping"}, {Name: "get_order_status", Description: "Status.", Parameters: json.RawMessage(`{"type":"object"}`)}}))
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"type":"function","function":{"name":"ping"}},{"type":"function","function":{"name":"get_order_status","description":"Status.","parameters":{"type":"object"}}}]`; string(b) != want {
		t.Errorf("ChatTools:\n got %s\nwant %s", b, want)
	}
}
