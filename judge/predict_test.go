package judge

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/goldtrace/goldtrace/judge/judgetest"
	"github.com/goldtrace/goldtrace/trace"
)

// TestPredictRequest sends a gold input to the model under test in the
// chat-completions form the exports write (trace.ChatMessages): the tool
// result carries no name, the user's participant name stays; a tool without
// a schema gets an empty object schema; the model's calls come back as calls.
func TestPredictRequest(t *testing.T) {
	fs := judgetest.New(t, func(int, *judgetest.Request) (int, map[string]string, string) {
		return 200, nil, judgetest.ToolCalls(judgetest.ToolCall{Name: "get_order_status", Arguments: `{"order_id":"ORD-1"}`})
	})
	in := PredictInput{ID: "it_1",
		Messages: []trace.Message{
			{Role: trace.RoleUser, Name: "alice_9", Content: "where is ORD-1?"},
			{Role: trace.RoleAssistant, ToolCalls: []trace.Call{trace.NewCall("c1", "search_faq", `{"query":"late"}`)}},
			{Role: trace.RoleTool, Name: "search_faq", ToolCallID: "c1", Content: "no article"},
		},
		Tools: []trace.Tool{{Name: "get_order_status", Parameters: json.RawMessage(`{"type":"object","properties":{"order_id":{"type":"string"}}}`)}, {Name: "ping"}},
	}
	preds, _, err := Predict(context.Background(), &Runner{Client: testClient(t, fs.URL)}, []PredictInput{in})
	if err != nil {
		t.Fatal(err)
	}
	if len(preds) != 1 || preds[0].Err != nil || len(preds[0].Calls) != 1 || preds[0].Calls[0].Name != "get_order_status" {
		t.Fatalf("predictions %+v", preds)
	}
	reqs := fs.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	msgs := reqs[0].Body.Messages
	if len(msgs) != 3 {
		t.Fatalf("messages %+v", msgs)
	}
	if msgs[0].Name == nil || *msgs[0].Name != "alice_9" {
		t.Errorf("user message name %v, want alice_9", msgs[0].Name)
	}
	if msgs[2].Name != nil || msgs[2].ToolCallID != "c1" {
		t.Errorf("tool result: name %v (want none), tool_call_id %q", msgs[2].Name, msgs[2].ToolCallID)
	}
	tools := reqs[0].Body.Tools
	if len(tools) != 2 || string(tools[1].Function.Parameters) != `{"type":"object","properties":{}}` {
		t.Errorf("tools %+v: a tool without a schema is sent with an empty object schema", tools)
	}
}
