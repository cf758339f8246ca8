package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// LangChain-serialised messages, as LangSmith stores a chat model's inputs
// and outputs:
//
//	{"lc":1,"type":"constructor","id":["langchain","schema","messages","AIMessage"],
//	 "kwargs":{"content":"…","tool_calls":[{"name":…,"args":{…},"id":…}]}}
//
// They are converted to the chat-completions message model (chatMessage),
// which every other reader of such logs shares.

type lcMessage struct {
	LC     int      `json:"lc"`
	Type   string   `json:"type"`
	ID     []string `json:"id"`
	Kwargs struct {
		Content          json.RawMessage `json:"content"`
		Role             string          `json:"role"`
		Name             string          `json:"name"`
		ToolCallID       string          `json:"tool_call_id"`
		ToolCalls        []lcToolCall    `json:"tool_calls"`
		AdditionalKwargs struct {
			ToolCalls    []chatCall    `json:"tool_calls"`
			FunctionCall *chatFunction `json:"function_call"`
		} `json:"additional_kwargs"`
	} `json:"kwargs"`
}

type lcToolCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// isLangChainMessage says whether raw is one serialised LangChain message.
func isLangChainMessage(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{' && bytes.Contains(raw, []byte(`"lc"`)) && bytes.Contains(raw, []byte(`"kwargs"`))
}

// lcRoles maps LangChain message classes onto roles.
var lcRoles = map[string]string{
	"HumanMessage": RoleUser, "HumanMessageChunk": RoleUser,
	"AIMessage": RoleAssistant, "AIMessageChunk": RoleAssistant,
	"SystemMessage": RoleSystem, "SystemMessageChunk": RoleSystem,
	"ToolMessage": RoleTool, "ToolMessageChunk": RoleTool,
	"FunctionMessage": RoleTool, "FunctionMessageChunk": RoleTool,
	"ChatMessage": "", "ChatMessageChunk": "",
}

func (m lcMessage) toChat() (chatMessage, error) {
	if len(m.ID) == 0 {
		return chatMessage{}, errors.New("LangChain message has no id (class path)")
	}
	class := m.ID[len(m.ID)-1]
	role, ok := lcRoles[class]
	if !ok {
		return chatMessage{}, fmt.Errorf("LangChain message of unknown type %q", class)
	}
	k := m.Kwargs
	if role == "" {
		role = k.Role
	}
	out := chatMessage{Role: role, Content: k.Content, Name: k.Name, ToolCallID: k.ToolCallID}
	for _, c := range k.ToolCalls {
		args := c.Args
		if len(args) == 0 {
			args = json.RawMessage(`{}`)
		}
		out.ToolCalls = append(out.ToolCalls, chatCall{ID: c.ID, Name: c.Name, Arguments: args})
	}
	if len(out.ToolCalls) == 0 {
		out.ToolCalls = k.AdditionalKwargs.ToolCalls
		out.FunctionCall = k.AdditionalKwargs.FunctionCall
	}
	return out, nil
}

// anyChatMessages reads a list of messages given either as chat-completions
// messages or as serialised LangChain messages (mixed freely), or a list of
// such lists (LangSmith's batch of prompts: the first is taken).
func anyChatMessages(raw json.RawMessage) ([]chatMessage, error) {
	raw = bytes.TrimSpace(raw)
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, describeJSONError(err)
	}
	if len(items) > 0 {
		if first := bytes.TrimSpace(items[0]); len(first) > 0 && first[0] == '[' {
			return anyChatMessages(first)
		}
	}
	out := make([]chatMessage, 0, len(items))
	for i, it := range items {
		m, err := anyChatMessage(it)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// anyChatMessage reads one chat-completions or LangChain message.
func anyChatMessage(raw json.RawMessage) (chatMessage, error) {
	if isLangChainMessage(raw) {
		var lc lcMessage
		if err := json.Unmarshal(raw, &lc); err != nil {
			return chatMessage{}, describeJSONError(err)
		}
		return lc.toChat()
	}
	var m chatMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return chatMessage{}, describeJSONError(err)
	}
	if m.Role == "" {
		// LangChain's dict form: {"type":"human","content":…}.
		var t struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(raw, &t)
		switch t.Type {
		case "human":
			m.Role = RoleUser
		case "ai":
			m.Role = RoleAssistant
		case "system", "tool":
			m.Role = t.Type
		case "":
		default:
			return chatMessage{}, fmt.Errorf("LangChain message of unknown type %q", t.Type)
		}
	}
	return m, nil
}
