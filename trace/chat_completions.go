package trace

import "encoding/json"

// The canonical conversation written in OpenAI's chat-completions request
// shape, the one way goldtrace writes it: the export formats that carry chat
// messages (dataset) and the requests sent to a model (judge) both use it.
//
// A message's name is OpenAI's optional participant name, so it is kept on
// system, user and assistant messages and left off tool results: OpenAI's
// tool message is {role, content, tool_call_id} (the call id already says
// which call the result answers), and strict OpenAI-compatible servers
// refuse a field the schema does not have.

// ChatMessage is one chat-completions message.
type ChatMessage struct {
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	Name       string         `json:"name,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	ToolCalls  []ChatToolCall `json:"tool_calls,omitempty"`
}

// ChatToolCall is a call in chat-completions form: arguments are a JSON
// string.
type ChatToolCall struct {
	ID       string           `json:"id,omitempty"`
	Type     string           `json:"type"`
	Function ChatFunctionCall `json:"function"`
}

// ChatFunctionCall is the function part of a ChatToolCall.
type ChatFunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ChatTool is a tool in chat-completions form.
type ChatTool struct {
	Type     string           `json:"type"`
	Function ChatToolFunction `json:"function"`
}

// ChatToolFunction is the function part of a ChatTool.
type ChatToolFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// ChatMessages converts a conversation to chat-completions messages (tool
// call arguments as JSON strings, verbatim when they were unparseable; no
// name on tool results).
func ChatMessages(msgs []Message) []ChatMessage {
	out := make([]ChatMessage, len(msgs))
	for i, m := range msgs {
		cm := ChatMessage{Role: m.Role, Content: m.Content, Name: m.Name, ToolCallID: m.ToolCallID}
		if m.Role == RoleTool {
			cm.Name = ""
		}
		for _, c := range m.ToolCalls {
			cm.ToolCalls = append(cm.ToolCalls, ChatToolCall{ID: c.ID, Type: "function",
				Function: ChatFunctionCall{Name: c.Name, Arguments: c.RawArguments()}})
		}
		out[i] = cm
	}
	return out
}

// ChatTools converts tools to the chat-completions tools format (parameters
// as the tool has them, absent when it has none).
func ChatTools(tools []Tool) []ChatTool {
	out := make([]ChatTool, len(tools))
	for i, t := range tools {
		out[i] = ChatTool{Type: "function", Function: ChatToolFunction{Name: t.Name, Description: t.Description, Parameters: t.Parameters}}
	}
	return out
}
