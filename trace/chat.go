package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// chatMessage is a message in the canonical shape or OpenAI's
// chat-completions shape (the two differ only in where calls keep their
// name and arguments).
type chatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Name       string          `json:"name"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []chatCall      `json:"tool_calls"`
	// FunctionCall is OpenAI's legacy single call.
	FunctionCall *chatFunction `json:"function_call"`
}

type chatCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Function  *chatFunction   `json:"function"`
}

type chatFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Arguments   json.RawMessage `json:"arguments"`
	Parameters  json.RawMessage `json:"parameters"`
}

// chatTool is a tool in the canonical shape, OpenAI's
// {"type":"function","function":{…}} shape, or Anthropic's input_schema one.
type chatTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	InputSchema json.RawMessage `json:"input_schema"`
	Function    *chatFunction   `json:"function"`
}

func (m chatMessage) toMessage() (Message, error) {
	role, err := normaliseRole(m.Role)
	if err != nil {
		return Message{}, err
	}
	content, err := flattenContent(m.Content)
	if err != nil {
		return Message{}, err
	}
	out := Message{Role: role, Content: content, Name: m.Name, ToolCallID: m.ToolCallID}
	for i, c := range m.ToolCalls {
		call, err := c.toCall()
		if err != nil {
			return Message{}, fmt.Errorf("tool_calls[%d]: %w", i, err)
		}
		out.ToolCalls = append(out.ToolCalls, call)
	}
	if f := m.FunctionCall; f != nil {
		if f.Name == "" {
			return Message{}, errors.New("function_call: tool call has no name")
		}
		call, err := callFromJSON("", f.Name, f.Arguments)
		if err != nil {
			return Message{}, fmt.Errorf("function_call: %w", err)
		}
		out.ToolCalls = append(out.ToolCalls, call)
	}
	return out, nil
}

func (c chatCall) toCall() (Call, error) {
	name, args := c.Name, c.Arguments
	if c.Function != nil {
		if name == "" {
			name = c.Function.Name
		}
		if a := bytes.TrimSpace(args); len(a) == 0 || string(a) == "null" {
			args = c.Function.Arguments
		}
	}
	if name == "" {
		return Call{}, errors.New("tool call has no name")
	}
	return callFromJSON(c.ID, name, args)
}

func (t chatTool) toTool(cache schemaCache) (Tool, error) {
	out := Tool{Name: t.Name, Description: t.Description}
	params := t.Parameters
	if len(params) == 0 {
		params = t.InputSchema
	}
	if f := t.Function; f != nil {
		if out.Name == "" {
			out.Name = f.Name
		}
		if out.Description == "" {
			out.Description = f.Description
		}
		if len(params) == 0 {
			params = f.Parameters
		}
	}
	if out.Name == "" {
		return Tool{}, errors.New("tool has no name")
	}
	p, err := cache.normaliseSchema(params)
	if err != nil {
		return Tool{}, fmt.Errorf("%s: %w", out.Name, err)
	}
	out.Parameters = p
	return out, nil
}

// chatMessages converts a list of messages, naming the failing one.
func chatMessages(in []chatMessage, field string) ([]Message, error) {
	out := make([]Message, 0, len(in)+1)
	for i, m := range in {
		msg, err := m.toMessage()
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", field, i, err)
		}
		out = append(out, msg)
	}
	return out, nil
}

// chatTools converts a list of tool definitions.
func chatTools(in []chatTool, cache schemaCache) ([]Tool, error) {
	if len(in) == 0 {
		return []Tool{}, nil
	}
	out := make([]Tool, 0, len(in))
	for i, t := range in {
		tool, err := t.toTool(cache)
		if err != nil {
			return nil, fmt.Errorf("tools[%d]: %w", i, err)
		}
		out = append(out, tool)
	}
	return out, nil
}

// canonicalRecord is one line of the canonical trace format.
type canonicalRecord struct {
	ID        string                     `json:"id"`
	Timestamp json.RawMessage            `json:"timestamp"`
	Metadata  map[string]json.RawMessage `json:"metadata"`
	Tools     []chatTool                 `json:"tools"`
	Functions []chatFunction             `json:"functions"`
	Messages  []chatMessage              `json:"messages"`
}

// canonicalDecoder reads the canonical trace format (and the OpenAI shapes
// it admits).
type canonicalDecoder struct{ cache schemaCache }

func (d *canonicalDecoder) record(line int, data []byte) []result {
	var rec canonicalRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return errResult(line, describeJSONError(err))
	}
	if rec.Messages == nil {
		return errResult(line, errors.New("record has no messages"))
	}
	t, err := rec.toTrace(d.cache)
	if err != nil {
		return errResult(line, err)
	}
	return []result{{line: line, t: t}}
}

func (d *canonicalDecoder) flush() []result { return nil }

func (rec canonicalRecord) toTrace(cache schemaCache) (Trace, error) {
	ts, err := parseTimestamp(rec.Timestamp)
	if err != nil {
		return Trace{}, err
	}
	msgs, err := chatMessages(rec.Messages, "messages")
	if err != nil {
		return Trace{}, err
	}
	tools, err := chatTools(rec.Tools, cache)
	if err != nil {
		return Trace{}, err
	}
	for i, f := range rec.Functions {
		tool, err := chatTool{Function: &f}.toTool(cache)
		if err != nil {
			return Trace{}, fmt.Errorf("functions[%d]: %w", i, err)
		}
		tools = append(tools, tool)
	}
	return Trace{ID: rec.ID, Timestamp: ts, Metadata: decodeMetadata(rec.Metadata), Tools: tools, Messages: msgs}, nil
}
