package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
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

	// toolsRaw is the text of the tools value when recordLexer read the
	// record (Tools is left nil when it is the text of the last record's).
	toolsRaw []byte
}

// canonicalDecoder reads the canonical trace format (and the OpenAI shapes
// it admits).
type canonicalDecoder struct {
	cache schemaCache
	lex   recordLexer
	tools toolsMemo
}

func (d *canonicalDecoder) record(line int, data []byte) []result {
	var rec canonicalRecord
	if !d.lex.record(data, &rec, &d.tools) {
		// Not certain to read it as encoding/json does: let it.
		rec = canonicalRecord{}
		if err := json.Unmarshal(data, &rec); err != nil {
			return errResult(line, describeJSONError(err))
		}
	}
	if rec.Messages == nil {
		return errResult(line, errors.New("record has no messages"))
	}
	t, toolsValid, err := rec.toTrace(d.cache, &d.tools)
	if err != nil {
		return errResult(line, err)
	}
	return []result{{line: line, t: t, toolsValid: toolsValid}}
}

func (d *canonicalDecoder) flush() []result { return nil }

// toTrace converts the record; memo (nil for none) remembers the tools of
// the last record. toolsValid says the trace's tools are known to pass
// validateTools.
func (rec canonicalRecord) toTrace(cache schemaCache, memo *toolsMemo) (t Trace, toolsValid bool, err error) {
	ts, err := parseTimestamp(rec.Timestamp)
	if err != nil {
		return Trace{}, false, err
	}
	msgs, err := chatMessages(rec.Messages, "messages")
	if err != nil {
		return Trace{}, false, err
	}
	tools, toolsValid, err := memo.convert(rec.toolsRaw, rec.Tools, cache)
	if err != nil {
		return Trace{}, false, err
	}
	for i, f := range rec.Functions {
		tool, err := chatTool{Function: &f}.toTool(cache)
		if err != nil {
			return Trace{}, false, fmt.Errorf("functions[%d]: %w", i, err)
		}
		tools = append(tools, tool)
		toolsValid = false
	}
	return Trace{ID: rec.ID, Timestamp: ts, Metadata: decodeMetadata(rec.Metadata), Tools: tools, Messages: msgs}, toolsValid, nil
}

// toolsMemo remembers the tool lists of the last records, as read and as
// converted: the records of one log offer a few tool lists, byte for byte
// the same, and converting and validating them was most of the work of a
// record.
type toolsMemo struct {
	lists []memoTools // most recently used first
}

type memoTools struct {
	raw   []byte // the JSON text of the tools value
	tools []Tool // chatTools of it
	valid bool   // validateTools(tools) == nil
}

// toolsMemoSize is how many tool lists a toolsMemo remembers.
const toolsMemoSize = 8

// prefix returns the remembered text that data starts with (nil for none).
func (m *toolsMemo) prefix(data []byte) []byte {
	if m == nil {
		return nil
	}
	for _, l := range m.lists {
		if bytes.HasPrefix(data, l.raw) {
			return l.raw
		}
	}
	return nil
}

// convert is chatTools(in), from the memo when raw (the text in was read
// from; nil when unknown) is a text remembered. valid says the result
// passes validateTools.
func (m *toolsMemo) convert(raw []byte, in []chatTool, cache schemaCache) (tools []Tool, valid bool, err error) {
	if m == nil || len(raw) == 0 {
		tools, err := chatTools(in, cache)
		return tools, false, err
	}
	for i, l := range m.lists {
		if bytes.Equal(raw, l.raw) {
			copy(m.lists[1:i+1], m.lists[:i])
			m.lists[0] = l
			return slices.Clone(l.tools), l.valid, nil
		}
	}
	if tools, err = chatTools(in, cache); err != nil || len(tools) == 0 {
		return tools, false, err
	}
	l := memoTools{raw: bytes.Clone(raw), tools: slices.Clone(tools), valid: validateTools(tools) == nil}
	if len(m.lists) < toolsMemoSize {
		m.lists = append(m.lists, memoTools{})
	}
	copy(m.lists[1:], m.lists)
	m.lists[0] = l
	return tools, l.valid, nil
}
