package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// anthropicRequest is a Messages API request body.
type anthropicRequest struct {
	Model    string                     `json:"model"`
	System   json.RawMessage            `json:"system"`
	Messages []anthropicMessage         `json:"messages"`
	Tools    []chatTool                 `json:"tools"`
	Metadata map[string]json.RawMessage `json:"metadata"`
}

type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// anthropicBlock is one content block: text, tool_use or tool_result (others,
// such as images or thinking, carry no text and are left out).
type anthropicBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
}

type anthropicResponse struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Error   json.RawMessage `json:"error"`
}

// anthropicTrace turns one Messages API exchange into a trace: the system
// prompt first, tool_result blocks as tool messages, tool_use blocks as
// calls, and the response appended as the final assistant message.
func anthropicTrace(ex exchange, cache schemaCache) (Trace, error) {
	var req anthropicRequest
	var x recordLexer
	if !x.anthropicRequest(ex.request, &req) {
		req = anthropicRequest{}
		if err := json.Unmarshal(ex.request, &req); err != nil {
			return Trace{}, describeJSONError(err)
		}
	}
	if req.Messages == nil {
		return Trace{}, errors.New("request has no messages")
	}
	tools, err := chatTools(req.Tools, cache)
	if err != nil {
		return Trace{}, err
	}
	t := Trace{Tools: tools}
	system, err := flattenContent(req.System)
	if err != nil {
		return Trace{}, fmt.Errorf("system: %w", err)
	}
	if system != "" {
		t.Messages = append(t.Messages, Message{Role: RoleSystem, Content: system})
	}
	for i, m := range req.Messages {
		msgs, err := anthropicMessages(m.Role, m.Content)
		if err != nil {
			return Trace{}, fmt.Errorf("messages[%d]: %w", i, err)
		}
		t.Messages = append(t.Messages, msgs...)
	}
	model := req.Model
	if ex.response != nil {
		var resp anthropicResponse
		if !lexFlat(ex.response, flatField{name: "id", s: &resp.ID}, flatField{name: "model", s: &resp.Model},
			flatField{name: "role", s: &resp.Role}, flatField{name: "content", r: &resp.Content}, flatField{name: "error", r: &resp.Error}) {
			resp = anthropicResponse{}
			if err := json.Unmarshal(ex.response, &resp); err != nil {
				return Trace{}, fmt.Errorf("response: %w", describeJSONError(err))
			}
		}
		if len(resp.Error) > 0 && string(resp.Error) != "null" && len(resp.Content) == 0 {
			return Trace{}, fmt.Errorf("response is an API error: %s", textOf(resp.Error))
		}
		role := resp.Role
		if role == "" {
			role = RoleAssistant
		}
		msgs, err := anthropicMessages(role, resp.Content)
		if err != nil {
			return Trace{}, fmt.Errorf("response: %w", err)
		}
		t.Messages = append(t.Messages, msgs...)
		if resp.Model != "" {
			model = resp.Model
		}
		if ex.id == "" {
			ex.id = resp.ID
		}
	}
	if err := finishExchange(&t, ex, model, req.Metadata); err != nil {
		return Trace{}, err
	}
	return t, nil
}

// anthropicMessages converts one Messages API message. Its tool_result
// blocks become tool messages, placed before the rest of the message.
func anthropicMessages(role string, content json.RawMessage) ([]Message, error) {
	role, err := normaliseRole(role)
	if err != nil {
		return nil, err
	}
	content = bytes.TrimSpace(content)
	if len(content) == 0 || content[0] != '[' {
		text, err := flattenContent(content)
		if err != nil {
			return nil, err
		}
		return []Message{{Role: role, Content: text}}, nil
	}
	var blocks []anthropicBlock
	var x recordLexer
	if !x.anthropicBlocks(content, &blocks) {
		blocks = nil
		if err := json.Unmarshal(content, &blocks); err != nil {
			return nil, fmt.Errorf("content: %w", describeJSONError(err))
		}
	}
	var out []Message
	msg := Message{Role: role}
	var texts []string
	for j, b := range blocks {
		switch b.Type {
		case "text":
			if b.Text != "" {
				texts = append(texts, b.Text)
			}
		case "tool_use", "server_tool_use":
			if b.Name == "" {
				return nil, fmt.Errorf("content[%d]: tool call has no name", j)
			}
			call, err := callFromJSON(b.ID, b.Name, b.Input)
			if err != nil {
				return nil, fmt.Errorf("content[%d]: %w", j, err)
			}
			msg.ToolCalls = append(msg.ToolCalls, call)
		case "tool_result":
			result, err := toolResultText(b.Content)
			if err != nil {
				return nil, fmt.Errorf("content[%d]: %w", j, err)
			}
			out = append(out, Message{Role: RoleTool, ToolCallID: b.ToolUseID, Content: result})
		}
	}
	msg.Content = strings.Join(texts, "\n")
	if msg.Content != "" || len(msg.ToolCalls) > 0 || len(out) == 0 {
		out = append(out, msg)
	}
	return out, nil
}

// toolResultText is the text of a tool_result's content (a string or text
// blocks).
func toolResultText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '{' {
		return textOf(raw), nil
	}
	return flattenContent(raw)
}
