package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// OpenAI Responses API: a request's instructions and input items, its flat
// function tools, and a response's output items. The same item model serves
// every envelope that carries Responses items (request/response logs, bare
// response objects with their stored input, observability exports).

// responsesItem is one input or output item: a message, a function_call, a
// function_call_output, or something without text (reasoning, web search
// calls), which is left out.
type responsesItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Output    json.RawMessage `json:"output"`
	Input     json.RawMessage `json:"input"` // custom_tool_call
}

type responsesRequest struct {
	Model        string                     `json:"model"`
	Instructions json.RawMessage            `json:"instructions"`
	Input        json.RawMessage            `json:"input"`
	Tools        []chatTool                 `json:"tools"`
	Metadata     map[string]json.RawMessage `json:"metadata"`
}

type responsesResponse struct {
	ID           string          `json:"id"`
	Object       string          `json:"object"`
	Model        string          `json:"model"`
	CreatedAt    json.RawMessage `json:"created_at"`
	Instructions json.RawMessage `json:"instructions"`
	Input        json.RawMessage `json:"input"`
	Output       json.RawMessage `json:"output"`
	Tools        []chatTool      `json:"tools"`
	Error        json.RawMessage `json:"error"`
}

// responsesMessages converts Responses input or output items (or an input
// given as plain text, a user message). Consecutive function_call items
// join one assistant message, as chat completions logs them.
func responsesMessages(raw json.RawMessage, field string) ([]Message, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '"' {
		return []Message{{Role: RoleUser, Content: textOf(raw)}}, nil
	}
	var items []responsesItem
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("%s: %w", field, describeJSONError(err))
	}
	var out []Message
	for i, it := range items {
		where := fmt.Sprintf("%s[%d]", field, i)
		switch it.Type {
		case "message", "":
			if it.Role == "" {
				if it.Type == "" {
					return nil, fmt.Errorf("%s: item has no type and no role", where)
				}
				it.Role = RoleAssistant
			}
			role, err := normaliseRole(it.Role)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			text, err := flattenContent(it.Content)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			out = append(out, Message{Role: role, Content: text})
		case "function_call", "custom_tool_call":
			if it.CallID == "" {
				return nil, fmt.Errorf("%s: function_call without call_id", where)
			}
			if it.Name == "" {
				return nil, fmt.Errorf("%s: function_call has no name", where)
			}
			args := it.Arguments
			if it.Type == "custom_tool_call" {
				args = it.Input
			}
			call, err := callFromJSON(it.CallID, it.Name, args)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			if n := len(out); n > 0 && out[n-1].Role == RoleAssistant {
				out[n-1].ToolCalls = append(out[n-1].ToolCalls, call)
			} else {
				out = append(out, Message{Role: RoleAssistant, ToolCalls: []Call{call}})
			}
		case "function_call_output", "custom_tool_call_output":
			if it.CallID == "" {
				return nil, fmt.Errorf("%s: %s without call_id", where, it.Type)
			}
			text, err := toolOutputText(it.Output)
			if err != nil {
				return nil, fmt.Errorf("%s: output: %w", where, err)
			}
			out = append(out, Message{Role: RoleTool, ToolCallID: it.CallID, Content: text})
		}
	}
	return out, nil
}

// toolOutputText is a tool output given as text, content parts, or any
// other JSON value (rendered compactly).
func toolOutputText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		return flattenContent(raw)
	}
	return textOf(raw), nil
}

// responsesTools keeps the function tools; built-in tools (web search, file
// search) have no name and no schema and are left out.
func responsesTools(in []chatTool, cache schemaCache) ([]Tool, error) {
	kept := in[:0:0]
	for _, t := range in {
		if t.Name == "" && t.Function == nil && t.Type != "" && t.Type != "function" {
			continue
		}
		kept = append(kept, t)
	}
	return chatTools(kept, cache)
}

// responsesTrace turns one Responses exchange into a trace: the
// instructions as the system message, the input items, then the output
// items. A bare response object (no request) contributes its stored input
// items when it has them.
func responsesTrace(ex exchange, cache schemaCache) (Trace, error) {
	var req responsesRequest
	if ex.request != nil {
		if err := json.Unmarshal(ex.request, &req); err != nil {
			return Trace{}, describeJSONError(err)
		}
	}
	var resp responsesResponse
	if ex.response != nil {
		if err := json.Unmarshal(ex.response, &resp); err != nil {
			return Trace{}, fmt.Errorf("response: %w", describeJSONError(err))
		}
		if len(resp.Error) > 0 && string(resp.Error) != "null" && len(resp.Output) == 0 {
			return Trace{}, fmt.Errorf("response is an API error: %s", textOf(resp.Error))
		}
	}
	instructions := firstNonEmpty(req.Instructions, resp.Instructions)
	input := req.Input
	if ex.request == nil {
		input = resp.Input
	}
	toolDefs := req.Tools
	if len(toolDefs) == 0 {
		toolDefs = resp.Tools
	}
	tools, err := responsesTools(toolDefs, cache)
	if err != nil {
		return Trace{}, err
	}
	t := Trace{Tools: tools}
	if sys, err := flattenContent(instructions); err != nil {
		return Trace{}, fmt.Errorf("instructions: %w", err)
	} else if strings.TrimSpace(sys) != "" {
		t.Messages = append(t.Messages, Message{Role: RoleSystem, Content: sys})
	}
	in, err := responsesMessages(input, "input")
	if err != nil {
		return Trace{}, err
	}
	t.Messages = append(t.Messages, in...)
	if ex.response != nil {
		out, err := responsesMessages(resp.Output, "response.output")
		if err != nil {
			return Trace{}, err
		}
		if len(out) == 0 {
			return Trace{}, errors.New("response has no output message or function_call")
		}
		t.Messages = append(t.Messages, out...)
		if ts, err := parseTimestamp(resp.CreatedAt); err == nil && !ts.IsZero() {
			t.Timestamp = ts
		}
		if ex.id == "" {
			ex.id = resp.ID
		}
	}
	model := req.Model
	if resp.Model != "" {
		model = resp.Model
	}
	if err := finishExchange(&t, ex, model, req.Metadata); err != nil {
		return Trace{}, err
	}
	return t, nil
}
